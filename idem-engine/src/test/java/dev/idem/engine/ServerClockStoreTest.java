package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store that judges time by its own server clock ({@link StoreCapabilities#serverClock()})
 * reports instants on that clock; the engine must never compare them with its own. It turns
 * them into time left at the claim and measures that on its ticker, whichever clock the store
 * says it uses.
 */
class ServerClockStoreTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private final MutableClock engineClock = new MutableClock(T0);
    // The server runs an hour ahead of the engine's JVM.
    private final MutableClock serverClock = new MutableClock(T0.plus(Duration.ofHours(1)));
    private final List<IdempotencyEvent> events = new ArrayList<>();

    private final MemoryIdempotencyStore shared = MemoryIdempotencyStore.builder().clock(serverClock).build();

    private IdempotencyEngine engine(boolean storeReportsServerClock, int nearCache) {
        FaultyStore store = new FaultyStore(shared) {
            @Override
            public StoreCapabilities capabilities() {
                StoreCapabilities c = super.capabilities();
                return new StoreCapabilities(c.nativeExpiry(), storeReportsServerClock, c.maxOutcomeBytes());
            }
        };
        IdempotencyEngineBuilder b = IdempotencyEngine.builder().store(store).clock(engineClock)
                .ticker(ClockTicker.of(engineClock)).lease(LEASE).ttl(Duration.ofMinutes(1)).listener(events::add);
        return nearCache > 0 ? b.nearCache(nearCache).build() : b.build();
    }

    private void advanceBoth(Duration d) {
        engineClock.advance(d);
        serverClock.advance(d);
    }

    @ParameterizedTest(name = "store reports a server clock: {0}")
    @ValueSource(booleans = {true, false})
    void theNearCacheForgetsAnOutcomeWhenTheStoreExpiresIt(boolean storeReportsServerClock) {
        IdempotencyKey key = IdempotencyKey.of("t", "op", "k");
        AtomicInteger runs = new AtomicInteger();
        engine(storeReportsServerClock, 0).execute(key, "{}", ctx -> runs.incrementAndGet());
        // Another node's replay from the store fills its near cache with the record's time left.
        IdempotencyEngine engine = engine(storeReportsServerClock, 10);
        assertThat(engine.execute(key, "{}", ctx -> runs.incrementAndGet()).value()).isEqualTo(1);

        advanceBoth(Duration.ofMinutes(2));
        // The store has expired the record, so the work runs afresh instead of a stale cached replay.
        assertThat(engine.execute(key, "{}", ctx -> runs.incrementAndGet()).value()).isEqualTo(2);
        assertThat(runs).hasValue(2);
    }

    @Test
    void theRecordAgeIsMeasuredOnTheStoreClock() {
        IdempotencyEngine engine = engine(true, 0);
        IdempotencyKey key = IdempotencyKey.of("t", "op", "age");
        engine.execute(key, "{}", ctx -> 1);
        advanceBoth(Duration.ofSeconds(42));
        engine.execute(key, "{}", ctx -> 2);
        assertThat(events).extracting(IdempotencyEvent::type).containsExactly(Type.FIRST_EXECUTION, Type.REPLAY);
        assertThat(events.get(1).recordAge()).isEqualTo(Duration.ofSeconds(42));
    }

    @Test
    void aWorkerThatStalledBetweenStepsOnAStoreWhoseClockRunsAheadLearnsOfTheTakeoverBeforeItsNextStep() {
        // The store's clock runs 20 s ahead of the engine's: its lease deadlines lie 20 s later
        // than the engine's clock would put them, so comparing the two would miss the lapse.
        serverClock.set(T0.plus(Duration.ofSeconds(20)));
        IdempotencyKey key = IdempotencyKey.of("t", "order", "stalled");
        IdempotencyEngine stale = engine(true, 0);
        IdempotencyEngine taker = engine(true, 0);
        List<String> charges = new ArrayList<>();
        Work<String> order = ctx -> {
            ctx.step("reserve", () -> { });
            if (ctx.attempt() == 1) {
                // This worker stalls past its lease; another one takes the key over and finishes.
                advanceBoth(LEASE.plusMillis(1));
                taker.execute(key, "{}", String.class, c -> {
                    c.step("reserve", () -> { });
                    return c.step("charge", String.class, () -> charges.add("charge@" + c.attempt()) + "");
                });
            }
            return ctx.step("charge", String.class, () -> charges.add("charge@" + ctx.attempt()) + "");
        };

        assertThatThrownBy(() -> stale.execute(key, "{}", String.class, order)).isInstanceOf(LeaseLostException.class);

        assertThat(charges).containsExactly("charge@2");
    }
}
