package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A store that judges time by its own server clock ({@link StoreCapabilities#serverClock()})
 * reports instants on that clock; the engine must not compare them with its own.
 */
class ServerClockStoreTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
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
        IdempotencyEngine.Builder b = IdempotencyEngine.builder().store(store).clock(engineClock)
                .ttl(Duration.ofMinutes(1)).listener(events::add);
        return nearCache > 0 ? b.nearCache(nearCache).build() : b.build();
    }

    private void advanceBoth(Duration d) {
        engineClock.advance(d);
        serverClock.advance(d);
    }

    @Test
    void theNearCacheForgetsAnOutcomeWhenTheServerExpiresIt() {
        IdempotencyKey key = IdempotencyKey.of("t", "op", "k");
        AtomicInteger runs = new AtomicInteger();
        engine(true, 0).execute(key, "{}", ctx -> runs.incrementAndGet());
        // Another node's replay from the store fills its near cache with the record's (server-clock) expiry.
        IdempotencyEngine engine = engine(true, 10);
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
    void aStoreOnTheEngineClockKeepsItsExpiryAsIs() {
        // Control: without the flag the record's expiry is taken at face value (an hour ahead here),
        // which is exactly what the flag exists to avoid for server-clock stores.
        IdempotencyKey key = IdempotencyKey.of("t", "op", "k");
        AtomicInteger runs = new AtomicInteger();
        engine(false, 0).execute(key, "{}", ctx -> runs.incrementAndGet());
        IdempotencyEngine engine = engine(false, 10);
        engine.execute(key, "{}", ctx -> runs.incrementAndGet());
        advanceBoth(Duration.ofMinutes(2));
        assertThat(engine.execute(key, "{}", ctx -> runs.incrementAndGet()).value()).isEqualTo(1);
    }
}
