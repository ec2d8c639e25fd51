package dev.idem.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import dev.idem.testsupport.MutableClock;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

@Timeout(60)
class DynamoDbStoreProviderTest {
    private final MutableClock clock = new MutableClock();

    private StoreProvider.Context context(Map<String, String> properties) {
        return new StoreProvider.Context() {
            @Override
            public Clock clock() {
                return clock;
            }

            @Override
            public Map<String, String> properties() {
                return properties;
            }
        };
    }

    private static StoreProvider provider() {
        List<StoreProvider> found = ServiceLoader.load(StoreProvider.class).stream()
                .map(ServiceLoader.Provider::get).collect(Collectors.toList());
        assertThat(found).extracting(StoreProvider::name).containsExactly("dynamodb");
        return found.get(0);
    }

    @Test
    void serviceLoaderFindsTheProviderAndItBuildsAWorkingStoreOnTheEnginesClock() {
        String table = DynamoDbLocal.newTableName("provider");
        IdempotencyStore store = provider().create(context(Map.of(
                DynamoDbStoreProvider.TABLE, table,
                DynamoDbStoreProvider.ENDPOINT, DynamoDbLocal.endpoint().toString(),
                DynamoDbStoreProvider.REGION, "us-east-1",
                DynamoDbStoreProvider.CREATE_TABLE, "true")));
        assertThat(DynamoDbStoreFixture.client().describeTimeToLive(b -> b.tableName(table))
                .timeToLiveDescription().timeToLiveStatus()).isEqualTo(TimeToLiveStatus.ENABLED);
        IdempotencyKey key = IdempotencyKey.of("prov-" + UUID.randomUUID(), "op", "k");
        var claim = store.claim(key, new byte[] {1}, 1, Duration.ofSeconds(10), Duration.ofMinutes(1));
        assertThat(claim.status()).isEqualTo(Status.ACQUIRED);
        assertThat(claim.storeTime()).isEqualTo(clock.instant());

        store.close();
        assertThatThrownBy(() -> store.find(key)).as("the store closed the client it built")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aMissingTablePropertyIsNamedInTheError() {
        assertThatThrownBy(() -> provider().create(context(Map.of())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(DynamoDbStoreProvider.TABLE);
    }

    @Test
    void badPropertiesAreNamedInTheError() {
        assertThatThrownBy(() -> provider().create(context(Map.of(DynamoDbStoreProvider.TABLE, "tbl",
                DynamoDbStoreProvider.CREATE_TABLE, "yes"))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(DynamoDbStoreProvider.CREATE_TABLE);
        assertThatThrownBy(() -> provider().create(context(Map.of(DynamoDbStoreProvider.TABLE, "tbl",
                DynamoDbStoreProvider.ENDPOINT, "localhost"))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(DynamoDbStoreProvider.ENDPOINT);
    }
}
