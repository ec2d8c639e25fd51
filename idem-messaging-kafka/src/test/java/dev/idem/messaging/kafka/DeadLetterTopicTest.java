package dev.idem.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.idem.messaging.PoisonMessageException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.errors.InterruptException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The dead-letter step is bounded by its timeout, even where the producer itself would block. */
@Timeout(60)
class DeadLetterTopicTest {

    @Test
    void aSendBlockedInsideTheProducerIsAbandonedAtTheTimeoutAndInterruptedSoItIsNeverSentLater()
            throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        // A producer that blocks in send() as KafkaProducer does while it waits for metadata or buffer
        // memory (up to max.block.ms), and gives up when its thread is interrupted, as KafkaProducer does.
        @SuppressWarnings("unchecked")
        Producer<byte[], byte[]> blocking = (Producer<byte[], byte[]>) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {Producer.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("send")) {
                        return null;
                    }
                    entered.countDown();
                    try {
                        Thread.sleep(TimeUnit.MINUTES.toMillis(10));
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw new InterruptException(e);
                    }
                    throw new AssertionError("not interrupted");
                });
        DeadLetterTopic dlt = new DeadLetterTopic(blocking, t -> t + ".DLT", Duration.ofMillis(300));
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("orders", 0, 7L, null, new byte[] {1});
        PoisonMessageException poison = new PoisonMessageException(PoisonMessageException.Reason.INVALID_KEY,
                "empty event id", null);

        // Before the fix park() waited as long as the producer blocked (here 10 minutes).
        assertTimeoutPreemptively(Duration.ofSeconds(20), () ->
                assertThatThrownBy(() -> dlt.park(record, poison)).isInstanceOf(TimeoutException.class)
                        .hasMessageContaining("PT0.3S"));
        assertThat(entered.getCount()).isZero();
        assertThat(interrupted.await(10, TimeUnit.SECONDS))
                .as("the abandoned send was interrupted: the record is not appended later").isTrue();
    }
}
