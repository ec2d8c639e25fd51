package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** ServiceLoader selection: the provider is registered and builds a working store from properties. */
@Timeout(60)
class RedisStoreProviderTest {

    private static StoreProvider.Context context(Map<String, String> properties) {
        return new StoreProvider.Context() {
            @Override
            public Clock clock() {
                return Clock.systemUTC();
            }

            @Override
            public Map<String, String> properties() {
                return properties;
            }
        };
    }

    private static IdempotencyKey key() {
        return IdempotencyKey.of("provider-" + UUID.randomUUID(), "op", "k");
    }

    @Test
    void theProviderIsRegisteredForServiceLoader() {
        List<String> names = ServiceLoader.load(StoreProvider.class).stream()
                .map(p -> p.get().name()).collect(Collectors.toList());
        assertThat(names).containsExactly("redis");
    }

    @Test
    void anEngineWithoutAStoreDiscoversRedisFromProperties() {
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .storeProperty(RedisStoreProvider.URI, "redis://127.0.0.1:" + EmbeddedRedis.standalonePort())
                .storeProperty(RedisStoreProvider.PREFIX, "discovered:")
                .build();
        try (IdempotencyStore store = engine.store()) {
            assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
            assertThat(store.toString()).contains("Jedis");
            IdempotencyKey k = key();
            Result<String> first = engine.execute(k, Map.of("a", 1), String.class, ctx -> "once");
            Result<String> again = engine.execute(k, Map.of("a", 1), String.class, ctx -> "twice");
            assertThat(first.replayed()).isFalse();
            assertThat(again.replayed()).isTrue();
            assertThat(again.value()).isEqualTo("once");
            assertThat(StandaloneClients.A.keys("discovered:{*")).isNotEmpty();
        }
    }

    @Test
    void aClusterIsReachedThroughItsSeedNodes() {
        String seeds = EmbeddedRedis.clusterPorts().stream().map(p -> "127.0.0.1:" + p)
                .collect(Collectors.joining(","));
        try (IdempotencyStore store = new RedisStoreProvider().create(context(Map.of(RedisStoreProvider.CLUSTER, seeds,
                RedisStoreProvider.TIMEOUT, "5000ms")))) {
            IdempotencyKey k = key();
            assertThat(store.claim(k, new byte[] {1}, 5, Duration.ofSeconds(10), Duration.ofMinutes(1)).status())
                    .isEqualTo(Status.ACQUIRED);
            assertThat(store.complete(k, 5, new byte[] {2}, Duration.ofMinutes(1))).isTrue();
        }
    }

    @Test
    void lettuceIsUsedWhenChosenForAServerOrACluster() {
        String seeds = EmbeddedRedis.clusterPorts().stream().map(p -> "127.0.0.1:" + p)
                .collect(Collectors.joining(","));
        for (Map<String, String> target : List.of(
                Map.of(RedisStoreProvider.URI, "redis://127.0.0.1:" + EmbeddedRedis.standalonePort() + "/0"),
                Map.of(RedisStoreProvider.CLUSTER, seeds))) {
            Map<String, String> properties = new HashMap<>(target);
            properties.put(RedisStoreProvider.CLIENT, "lettuce");
            // Lettuce's connect handshake is bounded by this timeout too (default 2 s): give a loaded
            // machine room.
            properties.put(RedisStoreProvider.TIMEOUT, "10s");
            try (IdempotencyStore store = new RedisStoreProvider().create(context(properties))) {
                assertThat(store.toString()).contains("Lettuce");
                IdempotencyKey k = key();
                assertThat(store.claim(k, new byte[] {1}, 5, Duration.ofSeconds(10), Duration.ofMinutes(1)).status())
                        .isEqualTo(Status.ACQUIRED);
                assertThat(store.complete(k, 5, new byte[] {2}, Duration.ofMinutes(1))).isTrue();
            }
        }
        assertThatThrownBy(() -> new RedisStoreProvider().create(context(Map.of(RedisStoreProvider.URI,
                "redis://127.0.0.1:1", RedisStoreProvider.CLIENT, "redisson"))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(RedisStoreProvider.CLIENT)
                .hasMessageContaining("redisson");
    }

    @Test
    void missingOrConflictingSettingsNameTheProperty() {
        RedisStoreProvider provider = new RedisStoreProvider();
        assertThatThrownBy(() -> provider.create(context(Map.of())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(RedisStoreProvider.URI).hasMessageContaining(RedisStoreProvider.CLUSTER);
        assertThatThrownBy(() -> provider.create(context(Map.of(RedisStoreProvider.URI, "redis://h:1",
                RedisStoreProvider.CLUSTER, "h:1")))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not both");
        assertThatThrownBy(() -> provider.create(context(Map.of(RedisStoreProvider.URI, "http://h:1"))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("redis://");
        assertThatThrownBy(() -> provider.create(context(Map.of(RedisStoreProvider.CLUSTER, "nohostport"))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("nohostport");
        assertThatThrownBy(() -> provider.create(context(Map.of(RedisStoreProvider.URI, "redis://127.0.0.1:1/zero"))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("database");
        Map<String, String> badPrefix = new HashMap<>();
        badPrefix.put(RedisStoreProvider.URI, "redis://127.0.0.1:1");
        badPrefix.put(RedisStoreProvider.PREFIX, "a{b}");
        assertThatThrownBy(() -> provider.create(context(badPrefix)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(RedisStoreProvider.PREFIX);
        assertThatThrownBy(() -> provider.create(context(Map.of(RedisStoreProvider.URI, "redis://127.0.0.1:1",
                RedisStoreProvider.TIMEOUT, "soon")))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(RedisStoreProvider.TIMEOUT);
        assertThatThrownBy(() -> provider.create(context(Map.of(RedisStoreProvider.URI, "redis://127.0.0.1:1",
                RedisStoreProvider.MAX_OUTCOME_BYTES, "0")))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(RedisStoreProvider.MAX_OUTCOME_BYTES);
    }
}
