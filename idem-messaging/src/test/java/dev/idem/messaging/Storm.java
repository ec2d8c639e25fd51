package dev.idem.messaging;

import dev.idem.api.RequestInProgressException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * A redelivery storm: a broker that redelivers every delivery that was not acknowledged, and
 * consumers that "crash" (lose the delivery without acknowledging it) at seeded points, before
 * handling or after the inbox completed, many times per event. Two consumer threads take
 * deliveries concurrently, so the same event is also in flight twice at once.
 */
final class Storm {
    /** One delivery of one event; {@code crashes} counts how often it may still be lost. */
    record Delivery(String eventId, byte[] payload, int crashesBeforeAck, int crashesBeforeHandle) {
    }

    private final LinkedBlockingQueue<Delivery> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger outstanding = new AtomicInteger();
    final AtomicInteger deliveries = new AtomicInteger();
    final AtomicInteger lostAcks = new AtomicInteger();
    final ConcurrentHashMap<String, AtomicInteger> acked = new ConcurrentHashMap<>();

    /**
     * Queues {@code events} events, each delivered one to three times, in a seeded order.
     *
     * @param seed the seed for duplicates, crash counts and order
     */
    Storm(int events, long seed) {
        Random random = new Random(seed);
        List<Delivery> all = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            byte[] payload = ("{\"n\":" + i + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            int copies = 1 + random.nextInt(3);
            for (int c = 0; c < copies; c++) {
                all.add(new Delivery("evt-" + i, payload, random.nextInt(6), random.nextInt(3)));
            }
        }
        Collections.shuffle(all, random);
        queue.addAll(all);
        outstanding.set(all.size());
    }

    /**
     * Runs {@code consumers} threads until every delivery was acknowledged.
     *
     * @param handle handles one delivery (eventId, payload) through the inbox; an exception means
     *     "not acknowledged"
     */
    void run(int consumers, BiConsumer<String, byte[]> handle) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(consumers);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < consumers; t++) {
                futures.add(pool.submit(() -> {
                    while (outstanding.get() > 0) {
                        Delivery d = queue.poll(10, TimeUnit.MILLISECONDS);
                        if (d == null) {
                            continue;
                        }
                        deliveries.incrementAndGet();
                        if (d.crashesBeforeHandle() > 0) {
                            queue.add(new Delivery(d.eventId(), d.payload(), d.crashesBeforeAck(),
                                    d.crashesBeforeHandle() - 1));
                            continue;
                        }
                        try {
                            handle.accept(d.eventId(), d.payload());
                        } catch (RequestInProgressException | Storm.TransientFailure e) {
                            queue.add(d);
                            continue;
                        }
                        if (d.crashesBeforeAck() > 0) {
                            // The inbox completed, the ack was lost: the broker redelivers.
                            lostAcks.incrementAndGet();
                            queue.add(new Delivery(d.eventId(), d.payload(), d.crashesBeforeAck() - 1, 0));
                            continue;
                        }
                        acked.computeIfAbsent(d.eventId(), k -> new AtomicInteger()).incrementAndGet();
                        outstanding.decrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** A handler failure the storm treats as "redeliver". */
    static final class TransientFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TransientFailure(String message) {
            super(message);
        }
    }
}
