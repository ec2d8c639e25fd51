package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.store.RecordState;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.engine.internal.json.PointerSet;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Paths that could run the work twice or give two answers for one outcome. */
class ExactlyOncePathsTest {
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private final FaultyStore store = new FaultyStore(memory);
    private final List<IdempotencyEvent> events = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger runs = new AtomicInteger();

    private IdempotencyEngineBuilder builder() {
        return IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).listener(events::add)
                .lease(Duration.ofSeconds(30)).ttl(Duration.ofHours(24));
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant-1", "create-charge", k);
    }

    private List<Type> eventTypes() {
        synchronized (events) {
            return events.stream().map(IdempotencyEvent::type).toList();
        }
    }

    @Test
    void fencingTokensStayUniqueWhateverRandomnessIsInjected() {
        IdempotencyEngine engine = builder().random(() -> 42L).build();
        List<Long> tokens = new ArrayList<>();
        assertThatThrownBy(() -> engine.execute(key("fixed"), "{}", String.class, ctx -> {
            tokens.add(ctx.fencingToken());
            runs.incrementAndGet();
            clock.advance(Duration.ofSeconds(31));
            engine.execute(key("fixed"), "{}", String.class, inner -> {
                tokens.add(inner.fencingToken());
                runs.incrementAndGet();
                return "taker-over";
            });
            return "stale";
        })).isInstanceOf(LeaseLostException.class);
        assertThat(tokens).hasSize(2).doesNotHaveDuplicates();
        Result<String> replay = engine.execute(key("fixed"), "{}", String.class, ctx -> "never");
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo("taker-over");
        assertThat(eventTypes().stream().filter(t -> t == Type.FIRST_EXECUTION)).hasSize(1);
        assertThat(eventTypes()).contains(Type.LEASE_LOST);
    }

    @Test
    void aLeaseLostByANestedCallForAnotherKeyIsAFailureOfThisWork() {
        IdempotencyEngine engine = builder().build();
        CallOptions longLease = CallOptions.builder().lease(Duration.ofMinutes(10)).build();
        assertThatThrownBy(() -> engine.execute(key("outer"), "{}", String.class, longLease, ctx ->
                engine.execute(key("inner"), "{}", String.class, inner -> {
                    clock.advance(Duration.ofSeconds(31));
                    engine.execute(key("inner"), "{}", String.class, taker -> "taker-over");
                    return "stale";
                }).value()))
                .isInstanceOfSatisfying(LeaseLostException.class, e -> assertThat(e.key()).isEqualTo(key("inner")));
        // The outer key is released at once, not held for its whole lease as if its own lease were lost.
        assertThat(memory.find(key("outer")).orElseThrow().state()).isEqualTo(RecordState.RELEASED);
        assertThat(engine.execute(key("outer"), "{}", String.class, ctx -> "retried").value()).isEqualTo("retried");
    }

    @Test
    void aWaitingDuplicateReportsOneConflictPerCall() {
        IdempotencyEngine engine = builder().inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(10)))
                .sleeper(clock::advance).build();
        IdempotencyKey k = key("busy");
        memory.claim(k, engine.parts.fingerprinter().fingerprint(k.operation(), "{}", PointerSet.EMPTY), 7,
                Duration.ofSeconds(2), Duration.ofHours(1));
        Result<String> r = engine.execute(k, "{}", String.class, ctx -> "after takeover");
        assertThat(r.value()).isEqualTo("after takeover");
        assertThat(store.claims.get()).isGreaterThan(2);
        assertThat(eventTypes()).containsExactly(Type.IN_PROGRESS_CONFLICT, Type.LEASE_TAKEN_OVER,
                Type.FIRST_EXECUTION);
    }
}
