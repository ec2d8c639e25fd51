package dev.idem.messaging.kafka;

import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.producer.Producer;

/**
 * What both inbox handlers' builders set: where poison records go, how long the broker calls
 * may take, and whether a record's source header is trusted. Each setter checks its argument at once and may be called once; exactly one of
 * {@link #deadLetterTopic} and {@link #onPoison} is required.
 *
 * @param <B> the concrete builder
 */
abstract class HandlerBuilder<B extends HandlerBuilder<B>> {
    private final Set<String> set = new HashSet<>();
    private PoisonRecordHandler poison;
    private Producer<byte[], byte[]> producer;
    private UnaryOperator<String> naming;
    private Duration sendTimeout = Duration.ofSeconds(30);
    Duration commitTimeout = Duration.ofSeconds(30);
    boolean trustSourceHeader;

    HandlerBuilder() {
    }

    abstract B self();

    final void once(String name) {
        if (!set.add(name)) {
            throw new IllegalStateException(name + " was already set");
        }
    }

    static Duration positive(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive but was " + d);
        }
        return d;
    }

    /**
     * Parks poison records on the dead-letter topic {@code <topic>.DLT} through
     * {@code producer} (byte-array keys and values; use {@code acks=all}), with the original
     * topic, partition, offset, a stable id and the reason in headers (see {@link KafkaHeaders}).
     *
     * @param producer the producer; the caller's, never closed here
     * @return this builder
     */
    public B deadLetterTopic(Producer<byte[], byte[]> producer) {
        return deadLetterTopic(producer, topic -> topic + ".DLT");
    }

    /**
     * Like {@link #deadLetterTopic(Producer)}, with the dead-letter topic named by {@code naming}.
     *
     * @param producer the producer; the caller's, never closed here
     * @param naming the dead-letter topic for a record's topic
     * @return this builder
     */
    public B deadLetterTopic(Producer<byte[], byte[]> producer, UnaryOperator<String> naming) {
        once("poison");
        this.producer = Objects.requireNonNull(producer, "producer");
        this.naming = Objects.requireNonNull(naming, "naming");
        return self();
    }

    /**
     * Parks poison records with {@code handler} instead of a dead-letter topic.
     *
     * @param handler the handler
     * @return this builder
     */
    public B onPoison(PoisonRecordHandler handler) {
        once("poison");
        this.poison = Objects.requireNonNull(handler, "onPoison");
        return self();
    }

    /**
     * How long {@code commitSync} may take before it counts as failed (default 30 s).
     *
     * @param timeout positive
     * @return this builder
     */
    public B commitTimeout(Duration timeout) {
        once("commitTimeout");
        this.commitTimeout = positive("commitTimeout", timeout);
        return self();
    }

    /**
     * How long the whole dead-letter step may take (default 30 s): the producer's own wait for
     * metadata or buffer memory (its {@code max.block.ms}) and the broker's acknowledgement.
     * Past it the parking fails, and the record is parked on a later delivery.
     *
     * @param timeout positive
     * @return this builder
     */
    public B deadLetterTimeout(Duration timeout) {
        once("deadLetterTimeout");
        this.sendTimeout = positive("deadLetterTimeout", timeout);
        return self();
    }

    /**
     * Takes each record's inbox source from its {@link KafkaHeaders#SOURCE} header (the topic when
     * it has none) instead of from its topic. Off by default, and for a reason: the header is
     * whatever the producer wrote, so any producer allowed to write to one of the topics this
     * handler reads could name another producer's source and claim its event ids (its records
     * would run as the other's events, and the other's own events would be answered as repeats or
     * mismatches, never handled). The topic is guarded by the broker's ACLs; the header is not.
     * Turn it on only when every producer of every topic the handler reads is trusted to name
     * itself (one service's outbox relay per topic, say), or while records an earlier version
     * stored under their header's source may still be redelivered.
     *
     * @return this builder
     */
    public B trustSourceHeader() {
        once("trustSourceHeader");
        this.trustSourceHeader = true;
        return self();
    }

    /** Where poison records go, as configured. */
    final PoisonRecordHandler poison() {
        if (producer != null) {
            return new DeadLetterTopic(producer, naming, sendTimeout);
        }
        if (poison == null) {
            throw new IllegalStateException("a place for poison records is required: deadLetterTopic(producer)"
                    + " or onPoison(handler)");
        }
        return poison;
    }
}
