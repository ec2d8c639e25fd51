package dev.idem.store.hybrid.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.store.hybrid.HybridStoreEvent;
import dev.idem.store.hybrid.HybridStoreEvent.Type;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The breaker: one failure skips the gate for the retry interval; the first success after it restores it. */
class BreakerTest {
    private final AtomicLong nanos = new AtomicLong();
    private final List<HybridStoreEvent> events = new CopyOnWriteArrayList<>();
    private final Breaker breaker = new Breaker(nanos::get, 1_000_000_000L, new Events(events::add));

    @Test
    void aFailureSkipsTheGateForTheRetryIntervalThenASuccessRestoresIt() {
        assertThat(breaker.allows()).isTrue();
        breaker.failed(new IllegalStateException("refused"));
        assertThat(breaker.isDown()).isTrue();
        assertThat(breaker.allows()).isFalse();
        nanos.addAndGet(999_999_999L);
        assertThat(breaker.allows()).isFalse();
        nanos.addAndGet(1);
        assertThat(breaker.allows()).as("tried again after the interval").isTrue();
        breaker.failed(new IllegalStateException("still refused"));
        assertThat(breaker.allows()).as("a failed retry starts a new interval").isFalse();
        nanos.addAndGet(1_000_000_000L);
        breaker.succeeded();
        breaker.succeeded();
        assertThat(breaker.isDown()).isFalse();
        assertThat(events).extracting(HybridStoreEvent::type).containsExactly(Type.GATE_DOWN, Type.GATE_UP);
        assertThat(events.get(0).cause()).hasMessage("refused");
    }
}
