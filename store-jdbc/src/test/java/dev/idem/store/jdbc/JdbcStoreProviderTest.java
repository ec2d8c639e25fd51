package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import dev.idem.engine.IdempotencyEngine;
import java.time.Clock;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** ServiceLoader selection: the provider is registered and configured from properties. */
class JdbcStoreProviderTest {
    private static final String URL = "jdbc:h2:mem:idem-provider;DB_CLOSE_DELAY=-1";

    private static StoreProvider.Context context(Map<String, String> props) {
        return new StoreProvider.Context() {
            @Override
            public Clock clock() {
                return Clock.systemUTC();
            }

            @Override
            public Map<String, String> properties() {
                return props;
            }
        };
    }

    @Test
    void providerIsRegisteredForServiceLoader() {
        assertThat(ServiceLoader.load(StoreProvider.class).stream().map(p -> p.type().getName()))
                .contains(JdbcStoreProvider.class.getName());
    }

    @Test
    void missingUrlNamesThePropertyToSet() {
        assertThatThrownBy(() -> new JdbcStoreProvider().create(context(Map.of())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("idem.store.jdbc.url");
    }

    @Test
    void dialectSettingIsReadInAnyCaseAndNamesThePropertyWhenWrong() {
        assertThat(JdbcDialect.fromSetting(" PostgreSQL ")).isEqualTo(JdbcDialect.POSTGRESQL);
        assertThat(JdbcDialect.fromSetting("mysql")).isEqualTo(JdbcDialect.MYSQL);
        assertThat(JdbcDialect.fromSetting("H2")).isEqualTo(JdbcDialect.H2);
        assertThatThrownBy(() -> JdbcDialect.fromSetting("mariadb")).isInstanceOf(IllegalStateException.class)
                .hasMessage("idem.store.jdbc.dialect must be postgresql, mysql or h2 but was 'mariadb'");
    }

    @Test
    void badDialectPropertyIsRejected() {
        assertThatThrownBy(() -> new JdbcStoreProvider().create(context(Map.of("idem.store.jdbc.url", URL,
                "idem.store.jdbc.dialect", "oracle")))).isInstanceOf(IllegalStateException.class).hasMessageContaining("oracle");
    }

    @Test
    void engineWithoutAnExplicitStoreSelectsTheJdbcStoreFromProperties() {
        IdempotencyEngine engine = IdempotencyEngine.builder().storeProperty("idem.store.jdbc.url", URL)
                .storeProperty("idem.store.jdbc.table", "provider_records").storeProperty("idem.store.jdbc.create-table", "true")
                .build();
        IdempotencyStore store = engine.store();
        assertThat(store).isInstanceOf(JdbcIdempotencyStore.class);
        assertThat(((JdbcIdempotencyStore) store).tableName()).isEqualTo("provider_records");
        IdempotencyKey key = IdempotencyKey.of("provider-" + UUID.randomUUID(), "op", "k");
        int[] runs = {0};
        assertThat(engine.execute(key, Map.of("amount", 1), String.class, ctx -> "ok" + (++runs[0])).value()).isEqualTo("ok1");
        assertThat(engine.execute(key, Map.of("amount", 1), String.class, ctx -> "ok" + (++runs[0])).replayed()).isTrue();
        assertThat(runs[0]).isEqualTo(1);
    }
}
