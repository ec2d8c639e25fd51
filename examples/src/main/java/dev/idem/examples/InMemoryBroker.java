package dev.idem.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The messaging demo's broker: at-least-once, like a queue with an ack timeout. A consumer
 * session takes messages and must acknowledge each; when the session dies, everything it took
 * and did not acknowledge is delivered again. A published message is never lost.
 */
final class InMemoryBroker {
    /** A message on the wire: the outbox's event id and the payload. */
    record Message(String source, String eventId, byte[] payload) {
    }

    private final LinkedBlockingQueue<Message> ready = new LinkedBlockingQueue<>();
    private final AtomicInteger published = new AtomicInteger();
    private final AtomicInteger redelivered = new AtomicInteger();
    private final AtomicInteger unacked = new AtomicInteger();

    void publish(Message m) {
        published.incrementAndGet();
        ready.add(m);
    }

    /** A consumer's connection; {@link #die()} returns its unacknowledged messages to the queue. */
    final class Session {
        private final List<Message> taken = new ArrayList<>();

        Message take(long timeoutMs) throws InterruptedException {
            Message m = ready.poll(timeoutMs, TimeUnit.MILLISECONDS);
            if (m != null) {
                taken.add(m);
                unacked.incrementAndGet();
            }
            return m;
        }

        void ack(Message m) {
            if (taken.remove(m)) {
                unacked.decrementAndGet();
            }
        }

        void die() {
            for (Message m : taken) {
                redelivered.incrementAndGet();
                unacked.decrementAndGet();
                ready.add(m);
            }
            taken.clear();
        }
    }

    Session connect() {
        return new Session();
    }

    boolean idle() {
        return ready.isEmpty() && unacked.get() == 0;
    }

    int published() {
        return published.get();
    }

    int redelivered() {
        return redelivered.get();
    }
}
