package dev.idem.messaging.kafka;

import dev.idem.testsupport.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Clients of a test broker with short, bounded timeouts. */
final class Kafka {
    private final String bootstrap;

    Kafka(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    static Kafka shared() {
        return new Kafka(EmbeddedKafka.bootstrap());
    }

    KafkaProducer<byte[], byte[]> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "20000");
        return new KafkaProducer<>(p);
    }

    KafkaConsumer<byte[], byte[]> consumer(String group) {
        return consumer(group, Map.of());
    }

    /** A consumer of {@code group} with {@code extra} settings on top of the tests' defaults. */
    KafkaConsumer<byte[], byte[]> consumer(String group, Map<String, String> extra) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.putAll(extra);
        return new KafkaConsumer<>(p);
    }

    /** A share consumer of {@code group} in explicit acknowledgement mode, as the share inbox handler needs. */
    KafkaShareConsumer<byte[], byte[]> shareConsumer(String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return new KafkaShareConsumer<>(p);
    }

    /**
     * Sets a share group's configuration before its first member joins: records from the earliest
     * offset, and the given lock duration and delivery count limit.
     */
    void shareGroup(String group, int lockMillis, int deliveryLimit) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
            admin.incrementalAlterConfigs(Map.of(resource, List.of(
                    set("share.auto.offset.reset", "earliest"),
                    set("share.record.lock.duration.ms", Integer.toString(lockMillis)),
                    set("share.delivery.count.limit", Integer.toString(deliveryLimit)))))
                    .all().get(60, TimeUnit.SECONDS);
        }
    }

    private static AlterConfigOp set(String name, String value) {
        return new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET);
    }

    /** Watches a share group's progress through one admin client (open it once per test). */
    ShareGroupWatch watch(String group, List<TopicPartition> partitions) {
        return new ShareGroupWatch(Admin.create(Map.of("bootstrap.servers", bootstrap)), group, partitions);
    }

    /** A share group's progress, seen from outside. */
    static final class ShareGroupWatch implements AutoCloseable {
        private final Admin admin;
        private final String group;
        private final List<TopicPartition> partitions;

        private ShareGroupWatch(Admin admin, String group, List<TopicPartition> partitions) {
            this.admin = admin;
            this.group = group;
            this.partitions = partitions;
        }

        /**
         * Whether every record of the partitions is in a final state (accepted, rejected or
         * archived): the group's lag is 0 on each. Its start offsets are persisted lazily, so
         * they are no measure.
         */
        boolean drained() throws Exception {
            Map<TopicPartition, SharePartitionOffsetInfo> at = admin.listShareGroupOffsets(Map.of(group,
                    new ListShareGroupOffsetsSpec().topicPartitions(partitions))).partitionsToOffsetInfo(group)
                    .get(30, TimeUnit.SECONDS);
            for (TopicPartition tp : partitions) {
                SharePartitionOffsetInfo info = at.get(tp);
                if (info == null || info.lag().orElse(-1L) != 0) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public void close() {
            admin.close(Duration.ofSeconds(10));
        }
    }

    /** Whether the topic exists (a dead-letter topic exists once something was parked on it). */
    boolean exists(String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic);
        }
    }

    String topic(String prefix, int partitions) throws Exception {
        String topic = prefix + "." + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        return topic;
    }

    static List<TopicPartition> partitions(String topic, int n) {
        List<TopicPartition> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new TopicPartition(topic, i));
        }
        return out;
    }

    /** A record as an idem outbox writes it: key, event id and source headers. */
    static ProducerRecord<byte[], byte[]> record(String topic, Integer partition, String key, String eventId,
            byte[] value) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, partition,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8), value);
        if (eventId != null) {
            r.headers().add(KafkaHeaders.EVENT_ID, eventId.getBytes(StandardCharsets.UTF_8));
        }
        r.headers().add(KafkaHeaders.SOURCE, "payments".getBytes(StandardCharsets.UTF_8));
        return r;
    }

    /** Whether the group's committed offsets reached the end of every partition. */
    boolean drained(String group, List<TopicPartition> partitions) {
        try (KafkaConsumer<byte[], byte[]> c = consumer(group)) {
            Map<TopicPartition, Long> end = c.endOffsets(partitions, Duration.ofSeconds(30));
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(Set.copyOf(partitions),
                    Duration.ofSeconds(30));
            for (TopicPartition tp : partitions) {
                OffsetAndMetadata at = committed.get(tp);
                if ((at == null ? 0 : at.offset()) < end.get(tp)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Reads {@code count} records of every partition of the topic from the start, within a bounded number of polls. */
    List<ConsumerRecord<byte[], byte[]>> read(String topic, int count) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = consumer("reader-" + UUID.randomUUID())) {
            c.assign(partitions(topic, c.partitionsFor(topic, Duration.ofSeconds(30)).size()));
            c.seekToBeginning(c.assignment());
            for (int poll = 0; poll < 100 && out.size() < count; poll++) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }
}
