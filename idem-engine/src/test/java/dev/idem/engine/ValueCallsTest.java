package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.store.RecordState;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The calls that return the value alone, and executeAtomically with the engine's defaults. */
class ValueCallsTest {
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
    private final AtomicInteger runs = new AtomicInteger();

    private static IdempotencyKey key(String token) {
        return IdempotencyKey.inScope("cus_1").operation("create-charge").key(token);
    }

    @Test
    void callReturnsTheValueAndADuplicateGetsTheStoredOneWithoutRunning() {
        Work<Charge> work = ctx -> new Charge("ch_" + runs.incrementAndGet(), new BigDecimal("12.50"), "EUR");

        Charge first = engine.call(key("a"), "{\"amount\":1250}", Charge.class, work);
        Charge again = engine.call(key("a"), "{\"amount\":1250}", Charge.class, work);

        assertThat(first).isEqualTo(new Charge("ch_1", new BigDecimal("12.50"), "EUR"));
        assertThat(again).isEqualTo(first);
        assertThat(runs).hasValue(1);
    }

    @Test
    void callWithAGenericTypeDecodesTheReplay() {
        TypeReference<List<Charge>> type = new TypeReference<>() { };
        Work<List<Charge>> work = ctx -> List.of(new Charge("ch_" + runs.incrementAndGet(), BigDecimal.ONE, "EUR"));

        List<Charge> first = engine.call(key("b"), "{}", type, work);
        List<Charge> again = engine.call(key("b"), "{}", type, work);

        assertThat(again).isEqualTo(first).hasSize(1);
        assertThat(again.get(0)).isInstanceOf(Charge.class);
        assertThat(runs).hasValue(1);
    }

    @Test
    void callThrowsWhatExecuteThrows() {
        engine.call(key("c"), "{\"amount\":1}", String.class, ctx -> "one");

        assertThatThrownBy(() -> engine.call(key("c"), "{\"amount\":2}", String.class, ctx -> "two"))
                .isInstanceOf(KeyReusedException.class);
    }

    @Test
    void executeAtomicallyWithDefaultsAndCallAtomicallyStoreWhatTheWorkCompleted() {
        AtomicWork<String> work = (ctx, completion) -> {
            runs.incrementAndGet();
            store.complete(ctx.key(), ctx.fencingToken(), completion.encode("done"), completion.ttl());
            return "done";
        };

        Result<String> first = engine.executeAtomically(key("d"), "{}", String.class, work);
        String again = engine.callAtomically(key("d"), "{}", String.class, work);

        assertThat(first.value()).isEqualTo("done");
        assertThat(first.stored()).isTrue();
        assertThat(first.replayed()).isFalse();
        assertThat(again).isEqualTo("done");
        assertThat(runs).hasValue(1);
        assertThat(store.find(key("d")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void theValueFormsWithOptionsApplyTheOptions() throws Exception {
        CallOptions shortLived = CallOptions.builder().ttl(Duration.ofMinutes(5))
                .lease(Duration.ofSeconds(10)).build();
        TypeReference<List<String>> list = new TypeReference<>() { };
        AtomicWork<String> atomic = (ctx, completion) -> {
            runs.incrementAndGet();
            store.complete(ctx.key(), ctx.fencingToken(), completion.encode("done"), completion.ttl());
            return "done";
        };
        AtomicWork<List<String>> atomicList = (ctx, completion) -> {
            runs.incrementAndGet();
            store.complete(ctx.key(), ctx.fencingToken(), completion.encode(List.of("x")), completion.ttl());
            return List.of("x");
        };

        assertThat(engine.call(key("e1"), "{}", String.class, shortLived, ctx -> "v" + runs.incrementAndGet()))
                .isEqualTo("v1");
        assertThat(engine.call(key("e2"), "{}", list, shortLived, ctx -> List.of("w" + runs.incrementAndGet())))
                .containsExactly("w2");
        assertThat(engine.callAtomically(key("e3"), "{}", String.class, shortLived, atomic)).isEqualTo("done");
        assertThat(engine.callAtomically(key("e4"), "{}", list, shortLived, atomicList)).containsExactly("x");
        assertThat(engine.callAtomically(key("e5"), "{}", list, atomicList)).containsExactly("x");
        assertThat(engine.executeAtomically(key("e6"), "{}", list, atomicList).value()).containsExactly("x");
        assertThat(engine.callAsync(key("e7"), "{}", String.class, shortLived,
                ctx -> CompletableFuture.completedFuture("a")).get(10, TimeUnit.SECONDS))
                .isEqualTo("a");
        assertThat(engine.callAsync(key("e8"), "{}", list, shortLived,
                ctx -> CompletableFuture.completedFuture(List.of("b")))
                .get(10, TimeUnit.SECONDS)).containsExactly("b");
        assertThat(runs).hasValue(6);

        // The options reached the store: every record expires within the call's TTL, not the engine's 24 h.
        for (String k : List.of("e1", "e2", "e3", "e4", "e7", "e8")) {
            assertThat(store.find(key(k)).orElseThrow().expiresAt())
                    .isBefore(Instant.now().plus(Duration.ofMinutes(6)));
        }
        // And a replay through a value form with options runs nothing.
        assertThat(engine.call(key("e1"), "{}", String.class, shortLived, ctx -> "again")).isEqualTo("v1");
        assertThat(runs).hasValue(6);
    }
}
