package dev.idem.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.messaging.Inbox;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rebalance in the middle of a batch, in a real consumer group on the shared broker: while
 * consumer A handles its poll, consumer B joins and A overruns its poll interval, so the group
 * rebalances without A and both partitions move to B, which gets A's uncommitted records
 * again; A's offset commit then fails, A seeks back, rejoins and gets one partition back; then
 * B leaves and the other is reassigned to A too. A transactional inbox (H2) books every event
 * exactly once, and the group drains.
 */
@Timeout(180)
class KafkaRebalanceTest {
    private static final Kafka KAFKA = Kafka.shared();

    private static KafkaConsumer<byte[], byte[]> member(String group, String name, int maxPollMillis) {
        Properties p = new Properties();
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, name + "-" + group);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, EmbeddedKafka.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        // A member that does not poll within this leaves the group (A's overrun) and, as the
        // rebalance timeout, is what the group waits for.
        p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, Integer.toString(maxPollMillis));
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "8");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    @Test
    void aRebalanceMidBatchRevokesAndReassignsAPartitionAndEachEventIsBookedOnce() throws Exception {
        String topic = KAFKA.topic("rebalance", 2);
        String group = "ledger-" + UUID.randomUUID();
        List<TopicPartition> partitions = Kafka.partitions(topic, 2);
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.producer()) {
            for (int i = 0; i < 16; i++) {
                producer.send(Kafka.record(topic, i % 2, null, "evt-" + i, ("" + i).getBytes(StandardCharsets.UTF_8)))
                        .get(30, TimeUnit.SECONDS);
            }
        }
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:rebalance-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        Jdbi jdbi = Jdbi.create(ds);
        jdbi.useHandle(h -> h.execute("CREATE TABLE ledger (event_id VARCHAR(100) NOT NULL, consumer VARCHAR(1))"));
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).build().createTableIfNotExists();
        CountDownLatch bJoins = new CountDownLatch(1);
        AtomicInteger booked = new AtomicInteger();
        Map<Long, String> names = new ConcurrentHashMap<>();
        Inbox<Integer> inbox = Inbox.builder(Integer.class).engine(IdempotencyEngine.builder().store(store).build())
                .consumer("ledger").transactionalHandler((m, c) -> store.inTransaction(c.key(), c.fencingToken(),
                        c.ttl(), c::encode, h -> {
                            String who = names.get(Thread.currentThread().getId());
                            if (booked.incrementAndGet() == 3) {
                                // B joins while A is in the middle of its batch, and A overruns its
                                // poll interval: the group goes on with B alone.
                                bJoins.countDown();
                                awaitGroupOfOnly(group, "B-" + group);
                            }
                            return h.createUpdate("INSERT INTO ledger (event_id, consumer) VALUES (:e, :c)")
                                    .bind("e", m.eventId()).bind("c", who).execute();
                        }))
                .build();
        KafkaInboxHandler<Integer> handler = KafkaInboxHandler.builder(inbox).onPoison((r, e) -> {
            throw new AssertionError("no poison here", e);
        }).commitTimeout(Duration.ofSeconds(10)).build();

        AtomicBoolean bRuns = new AtomicBoolean(true);
        CompletableFuture<Set<TopicPartition>> b = CompletableFuture.supplyAsync(() -> {
            names.put(Thread.currentThread().getId(), "B");
            try {
                assertThat(bJoins.await(60, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            Set<TopicPartition> held = ConcurrentHashMap.newKeySet();
            try (KafkaConsumer<byte[], byte[]> consumer = member(group, "B", 60_000)) {
                consumer.subscribe(List.of(topic));
                for (int poll = 0; poll < 600 && bRuns.get(); poll++) {
                    handler.pollOnce(consumer, Duration.ofMillis(100));
                    held.addAll(consumer.assignment());
                }
            }
            return held;
        });

        names.put(Thread.currentThread().getId(), "A");
        List<PollResult> byA = new ArrayList<>();
        List<Set<TopicPartition>> assignmentsOfA = new CopyOnWriteArrayList<>();
        try (KafkaConsumer<byte[], byte[]> a = member(group, "A", 5_000)) {
            a.subscribe(List.of(topic));
            // Until A is back in the group beside B, and everything is booked and committed ...
            for (int poll = 0; poll < 600 && !(assignmentsOfA.stream().anyMatch(s -> s.size() == 1)
                    && count(jdbi) == 16 && KAFKA.drained(group, partitions)); poll++) {
                byA.add(handler.pollOnce(a, Duration.ofMillis(100)));
                assignmentsOfA.add(Set.copyOf(a.assignment()));
            }
            // ... then B leaves, its partition comes back to A, and six more events arrive.
            bRuns.set(false);
            Set<TopicPartition> heldByB = b.get(60, TimeUnit.SECONDS);
            try (KafkaProducer<byte[], byte[]> producer = KAFKA.producer()) {
                for (int i = 16; i < 22; i++) {
                    producer.send(Kafka.record(topic, i % 2, null, "evt-" + i, ("" + i).getBytes(StandardCharsets.UTF_8)))
                            .get(30, TimeUnit.SECONDS);
                }
            }
            for (int poll = 0; poll < 600 && !(count(jdbi) == 22 && KAFKA.drained(group, partitions)); poll++) {
                byA.add(handler.pollOnce(a, Duration.ofMillis(100)));
            }

            assertThat(byA).as("A's commit failed: the group had moved on").anyMatch(PollResult::failed);
            assertThat(heldByB).as("a partition was revoked from A and assigned to B").isNotEmpty();
            assertThat(assignmentsOfA).as("A held fewer partitions while B was in").anyMatch(s -> s.size() == 1);
            assertThat(a.assignment()).as("reassigned to A after B left").containsExactlyInAnyOrderElementsOf(partitions);
        }
        assertThat(KAFKA.drained(group, partitions)).isTrue();
        Map<String, Integer> times = new ConcurrentHashMap<>();
        jdbi.useHandle(h -> h.createQuery("SELECT event_id FROM ledger").mapTo(String.class)
                .forEach(e -> times.merge(e, 1, Integer::sum)));
        assertThat(times).hasSize(22);
        assertThat(times.values()).as("each event booked exactly once").allMatch(n -> n == 1);
    }

    /** Waits (bounded) until the group is stable with one member, of client id {@code member}. */
    private static void awaitGroupOfOnly(String group, String member) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", EmbeddedKafka.bootstrap()))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!stable(admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
                    .get(10, TimeUnit.SECONDS), member)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the group did not settle with " + member + " alone");
                }
                Thread.sleep(10); // polling an observable condition, not ordering by time
            }
        }
    }

    private static boolean stable(ConsumerGroupDescription group, String member) {
        return group.groupState() == GroupState.STABLE && group.members().size() == 1
                && group.members().iterator().next().clientId().equals(member);
    }

    private static int count(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM ledger").mapTo(Integer.class).one());
    }
}
