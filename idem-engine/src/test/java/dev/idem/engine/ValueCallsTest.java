package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.store.RecordState;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.math.BigDecimal;
import java.util.List;
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
}
