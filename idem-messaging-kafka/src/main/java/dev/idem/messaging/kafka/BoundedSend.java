package dev.idem.messaging.kafka;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Sends one record and waits for the broker's acknowledgement, the whole within one timeout.
 * {@code Producer.send} itself blocks before it returns a future, up to the producer's
 * {@code max.block.ms} (60 s by default), while it waits for the topic's metadata (an unreachable
 * or unknown broker, a missing topic) or for buffer memory, so a timeout on the future alone does
 * not bound the send. Here {@code send} runs on a helper thread; if it has not returned by the
 * deadline, that thread is interrupted, which makes the producer give up with an
 * {@code InterruptException} before the record is appended, so an abandoned record is not sent
 * later (unless the interrupt lands just after it was appended: then it is delivered within the
 * producer's {@code delivery.timeout.ms}, a repeat the consumer must tolerate anyway). An interrupt
 * of the caller's thread, while the producer takes the record or while the acknowledgement is
 * awaited, ends the send with {@link InterruptedException} and the thread's interrupt flag set.
 */
final class BoundedSend {
    /** At most this many sends may be blocked inside producers at once; more fail at once. */
    private static final int MAX_BLOCKED = 16;
    private static final ThreadPoolExecutor SENDERS = senders();

    private BoundedSend() {
    }

    private static ThreadPoolExecutor senders() {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(0, MAX_BLOCKED, 30, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "idem-kafka-send-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        return pool;
    }

    /**
     * Sends {@code record} and waits for its acknowledgement, for at most {@code timeout} in all.
     *
     * @param producer the producer
     * @param record the record
     * @param timeout the bound on the whole step
     * @return the broker's acknowledgement
     * @throws TimeoutException if the producer did not take the record, or the broker did not
     *     acknowledge it, within the timeout
     * @throws Exception what the producer or the broker failed with
     */
    static RecordMetadata send(Producer<byte[], byte[]> producer, ProducerRecord<byte[], byte[]> record,
            Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Future<Future<RecordMetadata>> handoff;
        try {
            handoff = SENDERS.submit(() -> producer.send(record));
        } catch (RejectedExecutionException e) {
            throw new TimeoutException(MAX_BLOCKED + " sends are already blocked in their producers; not sending to "
                    + record.topic());
        }
        Future<RecordMetadata> ack;
        try {
            ack = handoff.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            handoff.cancel(true);
            throw new TimeoutException("the producer did not take the record for " + record.topic() + " within "
                    + timeout + " (waiting for metadata or buffer memory; see max.block.ms)");
        } catch (InterruptedException e) {
            handoff.cancel(true);
            Thread.currentThread().interrupt();
            throw e;
        } catch (ExecutionException e) {
            throw cause(e);
        }
        try {
            return ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            // Future.get cleared the flag; the caller (the outbox relay's shutdown) must still see it.
            Thread.currentThread().interrupt();
            throw e;
        } catch (TimeoutException e) {
            throw new TimeoutException("the broker did not acknowledge the record for " + record.topic() + " within "
                    + timeout);
        } catch (ExecutionException e) {
            throw cause(e);
        }
    }

    private static Exception cause(ExecutionException e) {
        return e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
    }
}
