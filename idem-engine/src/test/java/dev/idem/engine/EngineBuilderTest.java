package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.time.Deadline;
import dev.idem.api.time.Ticker;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class EngineBuilderTest {
    private final IdempotencyEngineBuilder b = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create());

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
        assertThatThrownBy(() -> engine.execute(IdempotencyKey.of("s", "o", "k"), "{}", String.class,
                CallOptions.builder().lease(Duration.ofMinutes(2)).build(), ctx -> "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shorter than ttl");
    }

    @Test
    void defaultsAreCallOptionsThatACallOverridesOneByOne() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        CallOptions base = CallOptions.builder().ttl(Duration.ofMinutes(10)).excludeFromFingerprint("/sentAt").build();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).defaults(base)
                .lease(Duration.ofSeconds(5)).build();
        AtomicInteger runs = new AtomicInteger();
        IdempotencyKey key = IdempotencyKey.of("s", "o", "defaults");

        engine.execute(key, "{\"amount\":1,\"sentAt\":\"a\"}", String.class, ctx -> "r" + runs.incrementAndGet());
        Result<String> again = engine.execute(key, "{\"amount\":1,\"sentAt\":\"b\"}", String.class,
                ctx -> "r" + runs.incrementAndGet());
        engine.execute(IdempotencyKey.of("s", "o", "override"), "{}", String.class,
                CallOptions.builder().ttl(Duration.ofHours(2)).build(), ctx -> "r" + runs.incrementAndGet());

        assertThat(again.replayed()).isTrue();
        assertThat(runs).hasValue(2);
        Instant now = Instant.now();
        assertThat(store.find(key).orElseThrow().expiresAt()).isBefore(now.plus(Duration.ofMinutes(11)));
        assertThat(store.find(IdempotencyKey.of("s", "o", "override")).orElseThrow().expiresAt())
                .isAfter(now.plus(Duration.ofHours(1)));
    }

    @Test
    void defaultsComeFirstOnceWithoutADeadlineAndAreCheckedAtBuild() {
        CallOptions withDeadline = CallOptions.builder()
                .deadline(Deadline.after(Duration.ofSeconds(1), Ticker.system()))
                .build();
        assertThatThrownBy(() -> IdempotencyEngine.builder().defaults(withDeadline))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("deadline");
        assertThatThrownBy(() -> IdempotencyEngine.builder().ttl(Duration.ofHours(1)).defaults(CallOptions.defaults()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("before ttl");
        assertThatThrownBy(() -> IdempotencyEngine.builder().defaults(CallOptions.defaults())
                .defaults(CallOptions.defaults())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("defaults was already set");
        assertThatThrownBy(() -> IdempotencyEngine.builder()
                .defaults(CallOptions.builder().ttl(Duration.ofHours(1)).build()).ttl(Duration.ofHours(2)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("ttl was already set");
        assertThatThrownBy(() -> b.defaults(CallOptions.builder().ttl(Duration.ofSeconds(10)).build()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease (PT30S) must be shorter");
        assertThatThrownBy(() -> IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .defaults(CallOptions.builder().ttl(Duration.ofMinutes(1))
                        .inProgress(InProgressPolicy.waitUpTo(Duration.ofMinutes(2))).lease(Duration.ofSeconds(5))
                        .build()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not exceed ttl");
    }
}
