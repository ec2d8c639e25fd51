package dev.idem.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.messaging.Inbox;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link KafkaShareInboxHandler} in real share groups on the shared broker: consumers killed
 * before and after acknowledging, an acquisition lock that lapses while its consumer still works
 * (so the broker hands the record to another member), and records whose deliveries run out. Every
 * check is from outside: the ledger the inbox books, the share group's start offsets (every
 * record in a final state), and the dead-letter topic.
 */
@Timeout(180)
class KafkaShareInboxTest {
    private static final Kafka KAFKA = Kafka.shared();
    private static KafkaProducer<byte[], byte[]> producer;

    @BeforeAll
    static void producer() {
        producer = KAFKA.producer();
    }

    @AfterAll
    static void close() {
        producer.close(Duration.ofSeconds(10));
    }

    private static void send(String topic, int partition, String eventId) throws Exception {
        producer.send(Kafka.record(topic, partition, null, eventId,
                ("{\"event\":\"" + eventId + "\"}").getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
    }

    @Test
    void eachEventIsBookedOnceThroughConsumersKilledBeforeAndAfterAcknowledging() throws Exception {
        String topic = KAFKA.topic("share-kill", 2);
        String group = "share-" + UUID.randomUUID();
        KAFKA.shareGroup(group, 2_000, 10);
        for (int i = 0; i < 24; i++) {
            send(topic, i % 2, "evt-" + i);
        }
        Map<String, AtomicInteger> ledger = new ConcurrentHashMap<>();
        Inbox<Integer> inbox = Inbox.builder(Integer.class).store(MemoryIdempotencyStore.create()).consumer("ledger")
                .handler(m -> ledger.computeIfAbsent(m.eventId(), k -> new AtomicInteger()).incrementAndGet()).build();
        KafkaShareInboxHandler<Integer> handler = KafkaShareInboxHandler.builder(inbox).deadLetterTopic(producer)
                .maxDeliveries(9).build();
        // Each round's consumer dies at one point (the nth time it reaches it), the last one lives.
        List<Map.Entry<FaultyShareConsumer.Point, Integer>> deaths = List.of(
                Map.entry(FaultyShareConsumer.Point.BEFORE_ACKNOWLEDGE, 3),
                Map.entry(FaultyShareConsumer.Point.BEFORE_COMMIT, 1),
                Map.entry(FaultyShareConsumer.Point.AFTER_COMMIT, 1),
                Map.entry(FaultyShareConsumer.Point.BEFORE_ACKNOWLEDGE, 1),
                Map.entry(FaultyShareConsumer.Point.AFTER_COMMIT, 2));
        Map<FaultyShareConsumer.Point, Integer> died = new EnumMap<>(FaultyShareConsumer.Point.class);
        List<TopicPartition> partitions = Kafka.partitions(topic, 2);
        try (Kafka.ShareGroupWatch watch = KAFKA.watch(group, partitions)) {
        for (int round = 0; round < 20 && !(ledger.size() == 24 && watch.drained()); round++) {
            Map.Entry<FaultyShareConsumer.Point, Integer> death = round < deaths.size() ? deaths.get(round) : null;
            KafkaShareConsumer<byte[], byte[]> real = KAFKA.shareConsumer(group);
            try {
                ShareConsumer<byte[], byte[]> consumer = FaultyShareConsumer.wrap(real,
                        (point, n) -> death != null && death.getKey() == point && death.getValue() == n);
                consumer.subscribe(List.of(topic));
                for (int poll = 0; poll < 100 && !(ledger.size() == 24 && watch.drained()); poll++) {
                    handler.pollOnce(consumer, Duration.ofMillis(200));
                }
                real.close(Duration.ofSeconds(10));
            } catch (KafkaEndToEndTest.Crash e) {
                died.merge(death.getKey(), 1, Integer::sum);
                real.close(Duration.ZERO);     // what it held goes back, as for a member that died
            }
        }
        assertThat(watch.drained()).as("every record accepted").isTrue();
        }

        assertThat(died).as("a consumer died at each point").containsOnlyKeys(FaultyShareConsumer.Point.values());
        assertThat(ledger).hasSize(24);
        assertThat(ledger.values()).as("each event booked once").allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(KAFKA.exists(topic + ".DLT")).as("nothing dead-lettered").isFalse();
    }

    @ParameterizedTest(name = "the first consumer's inbox lease lapses too: {0}")
    @ValueSource(booleans = {false, true})
    void aLockThatLapsesWhileItsConsumerStillWorksRedeliversToAnotherWhichWaitsAndBooksNothingTwice(
            boolean leaseLapses) throws Exception {
        String topic = KAFKA.topic("share-lapse", 1);
        String group = "share-" + UUID.randomUUID();
        KAFKA.shareGroup(group, 2_000, 10);
        for (int i = 0; i < 6; i++) {
            send(topic, 0, "evt-" + i);
        }
        MutableClock clock = new MutableClock();
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:share-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        Jdbi jdbi = Jdbi.create(ds);
        jdbi.useHandle(h -> h.execute("CREATE TABLE ledger (event_id VARCHAR(100) NOT NULL, booked_by VARCHAR(1))"));
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).clock(clock).build().createTableIfNotExists();
        Duration lease = Duration.ofSeconds(30);
        CountDownLatch aWorks = new CountDownLatch(1);
        CountDownLatch aMayGo = new CountDownLatch(1);
        Map<Thread, String> names = new ConcurrentHashMap<>();
        Inbox<Integer> inbox = Inbox.builder(Integer.class)
                .engine(IdempotencyEngine.builder().store(store).clock(clock).lease(lease).build()).consumer("ledger")
                .transactionalHandler((m, c) -> store.inTransaction(c.key(), c.fencingToken(), c.ttl(), c::encode, h -> {
                    String who = names.getOrDefault(Thread.currentThread(), "?");
                    if (who.equals("A") && m.eventId().equals("evt-0")) {
                        aWorks.countDown();               // A is slow on evt-0: its lock lapses meanwhile
                        assertThat(aMayGo.await(60, TimeUnit.SECONDS)).isTrue();
                    }
                    return h.createUpdate("INSERT INTO ledger (event_id, booked_by) VALUES (:e, :w)")
                            .bind("e", m.eventId()).bind("w", who).execute();
                }))
                .build();
        KafkaShareInboxHandler<Integer> handler = KafkaShareInboxHandler.builder(inbox).deadLetterTopic(producer)
                .maxDeliveries(9).build();
        List<TopicPartition> partitions = Kafka.partitions(topic, 1);

        AtomicBoolean aRuns = new AtomicBoolean(true);
        List<SharePollResult> byA = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> a = CompletableFuture.runAsync(() -> {
            names.put(Thread.currentThread(), "A");
            try (KafkaShareConsumer<byte[], byte[]> consumer = KAFKA.shareConsumer(group)) {
                consumer.subscribe(List.of(topic));
                for (int poll = 0; poll < 600 && aRuns.get(); poll++) {
                    byA.add(handler.pollOnce(consumer, Duration.ofMillis(100)));
                }
            }
        });
        assertThat(aWorks.await(60, TimeUnit.SECONDS)).as("A holds evt-0 and works on it").isTrue();

        names.put(Thread.currentThread(), "B");
        List<SharePollResult> byB = new ArrayList<>();
        boolean bWaited = false;
        boolean drained;
        try (KafkaShareConsumer<byte[], byte[]> b = KAFKA.shareConsumer(group);
                Kafka.ShareGroupWatch watch = KAFKA.watch(group, partitions)) {
            b.subscribe(List.of(topic));
            for (int poll = 0; poll < 600 && !(count(jdbi) == 6 && aMayGo.getCount() == 0 && watch.drained());
                    poll++) {
                SharePollResult r = handler.pollOnce(b, Duration.ofMillis(100));
                byB.add(r);
                if (!bWaited && r.failure() instanceof RequestInProgressException) {
                    // B got evt-0 after A's lock lapsed, found A's live lease, and kept the record.
                    bWaited = true;
                    if (leaseLapses) {
                        clock.advance(lease.plusSeconds(1));  // B's next try takes A's lapsed lease over
                    } else {
                        aMayGo.countDown();                   // A finishes; B's next try finds it done
                    }
                }
                if (leaseLapses && bWaited && booked(jdbi, "evt-0")) {
                    aMayGo.countDown();                       // A wakes after B booked evt-0
                }
            }
            drained = watch.drained();
        } finally {
            aMayGo.countDown();
            aRuns.set(false);
            a.get(60, TimeUnit.SECONDS);
        }

        assertThat(bWaited).as("B waited on A's lease instead of releasing").isTrue();
        assertThat(byB).anySatisfy(r -> assertThat(r.renewed()).isPositive());
        if (leaseLapses) {
            assertThat(byA).as("A's stale completion was fenced off and rolled back")
                    .anySatisfy(r -> assertThat(r.failure()).isInstanceOf(LeaseLostException.class));
        }
        Map<String, List<String>> rows = new ConcurrentHashMap<>();
        jdbi.useHandle(h -> h.createQuery("SELECT event_id, booked_by FROM ledger")
                .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2)))
                .forEach(e -> rows.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(e.getValue())));
        assertThat(rows).hasSize(6);
        assertThat(rows.values()).as("each event booked once").allSatisfy(by -> assertThat(by).hasSize(1));
        assertThat(rows.get("evt-0")).as("booked by the consumer that held the live lease")
                .containsExactly(leaseLapses ? "B" : "A");
        assertThat(drained).isTrue();
        assertThat(KAFKA.exists(topic + ".DLT")).as("nothing dead-lettered").isFalse();
    }

    @Test
    void aRecordWhoseDeliveriesRunOutIsParkedOnceAndPoisonAsToday() throws Exception {
        String topic = KAFKA.topic("share-exhaust", 1);
        String group = "share-" + UUID.randomUUID();
        KAFKA.shareGroup(group, 2_000, 3);
        send(topic, 0, "evt-0");
        send(topic, 0, "bad-1");                  // its handler always fails transiently
        send(topic, 0, "");                       // poison: empty event id
        send(topic, 0, "evt-3");
        Map<String, AtomicInteger> ledger = new ConcurrentHashMap<>();
        AtomicInteger badRuns = new AtomicInteger();
        Inbox<Integer> inbox = Inbox.builder(Integer.class).store(MemoryIdempotencyStore.create()).consumer("ledger")
                .maxAttempts(10).handler(m -> {
                    if (m.eventId().startsWith("bad")) {
                        badRuns.incrementAndGet();
                        throw new IllegalStateException("downstream refuses " + m.eventId());
                    }
                    return ledger.computeIfAbsent(m.eventId(), k -> new AtomicInteger()).incrementAndGet();
                }).build();
        KafkaShareInboxHandler<Integer> handler = KafkaShareInboxHandler.builder(inbox).deadLetterTopic(producer)
                .maxDeliveries(2).build();
        List<TopicPartition> partitions = Kafka.partitions(topic, 1);
        boolean drained;
        try (KafkaShareConsumer<byte[], byte[]> consumer = KAFKA.shareConsumer(group);
                Kafka.ShareGroupWatch watch = KAFKA.watch(group, partitions)) {
            consumer.subscribe(List.of(topic));
            for (int poll = 0; poll < 200 && !(ledger.size() == 2 && watch.drained()); poll++) {
                handler.pollOnce(consumer, Duration.ofMillis(100));
            }
            drained = watch.drained();
        }

        assertThat(ledger.keySet()).containsExactlyInAnyOrder("evt-0", "evt-3");
        assertThat(ledger.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(badRuns).as("two deliveries reached the handler, the third was parked").hasValue(2);
        assertThat(drained).isTrue();
        List<ConsumerRecord<byte[], byte[]>> dead = KAFKA.read(topic + ".DLT", 2);
        assertThat(dead).hasSize(2);
        assertThat(dead).extracting(r -> KafkaHeaders.text(r.headers(), KafkaHeaders.DLT_REASON))
                .containsExactlyInAnyOrder("deliveries_exhausted", "invalid_key");
        assertThat(dead).extracting(r -> KafkaHeaders.text(r.headers(), KafkaHeaders.DLT_ID))
                .containsExactlyInAnyOrder(topic + "-0-1", topic + "-0-2");
        assertThat(dead).filteredOn(r -> "deliveries_exhausted".equals(KafkaHeaders.text(r.headers(),
                KafkaHeaders.DLT_REASON))).singleElement()
                .satisfies(r -> assertThat(KafkaHeaders.text(r.headers(), KafkaHeaders.EVENT_ID)).isEqualTo("bad-1"));
    }

    private static int count(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM ledger").mapTo(Integer.class).one());
    }

    private static boolean booked(Jdbi jdbi, String eventId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM ledger WHERE event_id = :e")
                .bind("e", eventId).mapTo(Integer.class).one()) > 0;
    }
}
