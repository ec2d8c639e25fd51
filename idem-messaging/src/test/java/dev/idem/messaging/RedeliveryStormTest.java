package dev.idem.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Many redeliveries, lost acks and transient failures: every event's effect happens once. */
@Timeout(120)
class RedeliveryStormTest {

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void eachEventIsHandledOnceThroughAStormOfRedeliveries(long seed) throws Exception {
        Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> tries = new ConcurrentHashMap<>();
        Inbox<Integer> inbox = Inbox.builder(Integer.class).store(MemoryIdempotencyStore.create())
                .consumer("ledger").maxAttempts(100).handler(m -> {
                    // Every event fails transiently on its first try, before any effect.
                    if (tries.computeIfAbsent(m.eventId(), k -> new AtomicInteger()).incrementAndGet() == 1) {
                        throw new Storm.TransientFailure("first try of " + m.eventId());
                    }
                    return effects.computeIfAbsent(m.eventId(), k -> new AtomicInteger()).incrementAndGet();
                }).build();
        Storm storm = new Storm(200, seed);

        storm.run(2, (id, payload) -> {
            Delivery<Integer> d = inbox.handle("payments", id, payload);
            assertThat(d.status()).isEqualTo(Delivery.Status.HANDLED);
            assertThat(d.result()).isEqualTo(1);
        });

        assertThat(effects).hasSize(200);
        assertThat(effects.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(storm.acked).hasSize(200);
        assertThat(storm.lostAcks.get()).isGreaterThan(200);
        assertThat(storm.deliveries.get()).isGreaterThan(1000);
    }
}
