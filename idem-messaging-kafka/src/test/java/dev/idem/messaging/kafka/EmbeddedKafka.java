package dev.idem.messaging.kafka;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Features;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * One Kafka broker in KRaft mode (broker and controller in one node) in this JVM, from the
 * Maven artifacts: the log directory is formatted as {@code kafka-storage format} would, then
 * {@link KafkaRaftServer} starts. Started once per test JVM on first use, stopped by a
 * shutdown hook. Settings are the smallest that work on one node (replication factor 1, one
 * offsets partition, no rebalance delay).
 */
final class EmbeddedKafka {
    private static final class Holder {
        static final EmbeddedKafka INSTANCE = new EmbeddedKafka();
    }

    private final String bootstrap;

    private EmbeddedKafka() {
        try {
            Path dir = Files.createTempDirectory("idem-kafka-");
            int brokerPort = freePort();
            int controllerPort = freePort();
            Properties p = new Properties();
            p.put("process.roles", "broker,controller");
            p.put("node.id", "1");
            p.put("controller.quorum.voters", "1@localhost:" + controllerPort);
            p.put("listeners", "PLAINTEXT://localhost:" + brokerPort + ",CONTROLLER://localhost:" + controllerPort);
            p.put("advertised.listeners", "PLAINTEXT://localhost:" + brokerPort);
            p.put("controller.listener.names", "CONTROLLER");
            p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("log.dirs", dir.toString());
            p.put("num.partitions", "2");
            p.put("offsets.topic.replication.factor", "1");
            p.put("offsets.topic.num.partitions", "1");
            p.put("transaction.state.log.replication.factor", "1");
            p.put("transaction.state.log.min.isr", "1");
            p.put("group.initial.rebalance.delay.ms", "0");
            p.put("auto.create.topics.enable", "true");
            p.put("log.flush.interval.messages", "1");
            KafkaConfig config = KafkaConfig.fromProps(p, false);
            new Formatter().setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
                    .setNodeId(1).setClusterId(Uuid.randomUuid().toString())
                    .setDirectories(List.of(dir.toString())).setMetadataLogDirectory(dir.toString())
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                    .setSupportedFeatures(Features.PRODUCTION_FEATURES)
                    .setControllerListenerName("CONTROLLER").run();
            KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
            server.startup();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                server.shutdown();
                server.awaitShutdown();
            }));
            bootstrap = "localhost:" + brokerPort;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException("Kafka did not start", e);
        }
    }

    static String bootstrap() {
        return Holder.INSTANCE.bootstrap;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
