package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Events carry the client key and, on replays from the store, the record's age (for metrics and traces). */
class EventRecordAgeTest {
    private final MutableClock clock = new MutableClock();
    private final List<IdempotencyEvent> events = new ArrayList<>();

    @Test
    void aReplayFromTheStoreReportsHowLongAgoTheRecordWasCreated() {
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(MemoryIdempotencyStore.builder().clock(clock).build())
                .ticker(ClockTicker.of(clock)).listener(events::add).build();
        IdempotencyKey key = IdempotencyKey.of("t", "op", "k-1");
        engine.execute(key, "{}", ctx -> 1);
        clock.advance(Duration.ofSeconds(42));
        engine.execute(key, "{}", ctx -> 2);

        assertThat(events).extracting(IdempotencyEvent::type).containsExactly(Type.FIRST_EXECUTION, Type.REPLAY);
        assertThat(events.get(0).recordAge()).isNull();
        assertThat(events.get(1).recordAge()).isEqualTo(Duration.ofSeconds(42));
        assertThat(events).allSatisfy(e -> assertThat(e.key()).isEqualTo("k-1"));
    }

    @Test
    void aNearCacheReplayHasNoAge() {
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(MemoryIdempotencyStore.builder().clock(clock).build())
                .ticker(ClockTicker.of(clock)).nearCache(10).listener(events::add).build();
        IdempotencyKey key = IdempotencyKey.of("t", "op", "k-2");
        engine.execute(key, "{}", ctx -> 1);
        engine.execute(key, "{}", ctx -> 2);
        assertThat(events.get(1).type()).isEqualTo(Type.REPLAY);
        assertThat(events.get(1).recordAge()).isNull();
    }
}
