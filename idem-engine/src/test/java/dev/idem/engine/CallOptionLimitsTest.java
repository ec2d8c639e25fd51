package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Per-call overrides are checked against each other at their exact limits: a lease must be
 * strictly shorter than the TTL, a wait may equal the TTL but not exceed it, and a refused
 * call never runs the work.
 */
class CallOptionLimitsTest {
    private final MutableClock clock = new MutableClock();
    private final IdempotencyEngine engine = IdempotencyEngine.builder()
            .store(MemoryIdempotencyStore.builder().clock(clock).build()).clock(clock)
            .lease(Duration.ofSeconds(30)).ttl(Duration.ofHours(1)).build();
    private final AtomicInteger runs = new AtomicInteger();

    private Result<String> call(String k, CallOptions options) {
        return engine.execute(IdempotencyKey.of("t", "op", k), "{}", String.class, options, ctx -> {
            runs.incrementAndGet();
            return "ran";
        });
    }

    @Test
    void aLeaseEqualToTheTtlIsRefusedAndOneMillisecondShorterIsNot() {
        assertThatThrownBy(() -> call("a", CallOptions.builder().lease(Duration.ofMinutes(10))
                .ttl(Duration.ofMinutes(10)).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease (PT10M) must be shorter");
        assertThatThrownBy(() -> call("b", CallOptions.builder().lease(Duration.ofHours(1)).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl (PT1H)");
        assertThatThrownBy(() -> call("c", CallOptions.builder().ttl(Duration.ofSeconds(30)).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease (PT30S)");
        assertThat(runs).hasValue(0);
        assertThat(call("d", CallOptions.builder().lease(Duration.ofMinutes(10).minusMillis(1))
                .ttl(Duration.ofMinutes(10)).build()).value()).isEqualTo("ran");
        assertThat(call("e", CallOptions.builder().ttl(Duration.ofSeconds(31)).build()).value()).isEqualTo("ran");
    }

    @Test
    void aWaitMayEqualTheTtlButNotExceedIt() {
        assertThat(call("f", CallOptions.builder().ttl(Duration.ofMinutes(5))
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofMinutes(5))).build()).value()).isEqualTo("ran");
        assertThatThrownBy(() -> call("g", CallOptions.builder().ttl(Duration.ofMinutes(5))
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofMinutes(5).plusMillis(1))).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not exceed ttl (PT5M)");
        assertThatThrownBy(() -> call("h", CallOptions.builder()
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofHours(2))).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl (PT1H)");
        assertThat(runs).hasValue(1);
    }
}
