package dev.idem.store.hybrid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;

/** The builder refuses bad settings at once, naming them; building makes no call. */
class HybridBuilderTest {
    private static final RedisClient UNUSED = RedisClient.builder().hostAndPort("127.0.0.1", 1).build();
    /** A DataSource that fails every use: the builder and build() must not need one. */
    private final JdbcIdempotencyStore truth = JdbcIdempotencyStore.builder((javax.sql.DataSource)
            java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
                        throw new UnsupportedOperationException("no database in this test");
                    })).dialect(dev.idem.store.jdbc.JdbcDialect.POSTGRESQL).build();

    private HybridIdempotencyStore.Builder builder() {
        return HybridIdempotencyStore.builder(JedisScriptClient.of(UNUSED), truth);
    }

    @Test
    void badSettingsAreRefusedWithTheirName() {
        assertThatThrownBy(() -> HybridIdempotencyStore.builder(null, truth)).hasMessageContaining("gate");
        assertThatThrownBy(() -> HybridIdempotencyStore.builder(JedisScriptClient.of(UNUSED), null)).hasMessageContaining("truth");
        assertThatThrownBy(() -> builder().keyPrefix("a{b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> builder().keyPrefix("x".repeat(65))).hasMessageContaining("64");
        assertThatThrownBy(() -> builder().safetyMargin(Duration.ofMillis(-1))).hasMessageContaining("safetyMargin");
        assertThatThrownBy(() -> builder().safetyMargin(Duration.ofMinutes(2))).hasMessageContaining("safetyMargin");
        assertThatThrownBy(() -> builder().retryInterval(Duration.ZERO)).hasMessageContaining("retryInterval");
        assertThatThrownBy(() -> builder().pendingTimeout(Duration.ofMillis(10))).hasMessageContaining("pendingTimeout");
        assertThatThrownBy(() -> builder().maxGateOutcomeBytes(-1)).hasMessageContaining("maxGateOutcomeBytes");
        assertThatThrownBy(() -> builder().listener(null)).hasMessageContaining("listener");
    }

    @Test
    void buildingTouchesNeitherRedisNorTheDatabase() {
        HybridIdempotencyStore store = builder().safetyMargin(Duration.ZERO).maxGateOutcomeBytes(0).build();
        assertThat(store.gateAvailable()).isTrue();
        assertThat(store.truth()).isSameAs(truth);
        assertThat(store.capabilities().serverClock()).isTrue();
        assertThat(store.toString()).contains("idem:gate:");
    }
}
