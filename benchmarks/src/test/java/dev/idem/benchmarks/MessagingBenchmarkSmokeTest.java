package dev.idem.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.messaging.Delivery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Keeps the messaging benchmarks from rotting: setup and one invocation each on the cheap backends. */
@Timeout(120)
class MessagingBenchmarkSmokeTest {

    @Test
    void inboxBenchmarkMeasuresNewAndDuplicateDeliveries() {
        InboxBenchmark b = new InboxBenchmark();
        b.backend = Backend.MEMORY;
        b.setUp();
        try {
            assertThat(b.inboxNewEvent().duplicate()).isFalse();
            Delivery<Long> dup = b.inboxDuplicate();
            assertThat(dup.duplicate()).isTrue();
            assertThat(dup.status()).isEqualTo(Delivery.Status.HANDLED);
            assertThat(b.bare()).isPositive();
        } finally {
            b.tearDown();
        }
    }

    @Test
    void relayBenchmarkDrainsEveryRow() throws Exception {
        RelayBenchmark b = new RelayBenchmark();
        b.backend = Backend.H2;
        b.relays = 2;
        b.ordered = false;
        b.setUp();
        try {
            b.enqueue();
            assertThat(b.drain()).isEqualTo(RelayBenchmark.ROWS);
        } finally {
            b.tearDown();
        }
    }
}
