package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class EngineBuilderTest {
    private final IdempotencyEngine.Builder b = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create());

    @Test
    void settersRejectBadValuesAtOnceNamingThem() {
        assertThatThrownBy(() -> b.lease(Duration.ZERO)).hasMessageContaining("lease must be positive");
        assertThatThrownBy(() -> b.ttl(Duration.ofSeconds(-1))).hasMessageContaining("ttl must be positive");
        assertThatThrownBy(() -> b.nearCache(0)).hasMessageContaining("nearCache maxEntries must be positive but was 0");
        assertThatThrownBy(() -> b.maxRequestBytes(-5)).hasMessageContaining("-5");
        assertThatThrownBy(() -> b.completeAttempts(11)).hasMessageContaining("1..10");
        assertThatThrownBy(() -> b.excludeFromFingerprint("no-slash")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InProgressPolicy.waitUpTo(Duration.ZERO)).hasMessageContaining("maxWait");
    }

    @Test
    void settersRefuseToBeSetTwice() {
        b.lease(Duration.ofSeconds(5));
        assertThatThrownBy(() -> b.lease(Duration.ofSeconds(6))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lease was already set");
        assertThatThrownBy(() -> b.store(MemoryIdempotencyStore.create())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void buildRejectsContradictions() {
        assertThatThrownBy(() -> b.lease(Duration.ofHours(2)).ttl(Duration.ofHours(1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shorter than ttl");
        assertThatThrownBy(() -> CallOptions.builder().lease(Duration.ofMinutes(5)).ttl(Duration.ofMinutes(1)).build())
                .isInstanceOf(IllegalArgumentException.class);
        IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .ttl(Duration.ofMinutes(1)).lease(Duration.ofSeconds(30)).build();
        assertThatThrownBy(() -> engine.execute(dev.idem.api.IdempotencyKey.of("s", "o", "k"), "{}", String.class,
                CallOptions.builder().lease(Duration.ofMinutes(2)).build(), ctx -> "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shorter than ttl");
    }
}
