package dev.idem.testsupport.kafka;

import dev.idem.testsupport.FreePorts;
import dev.idem.testsupport.TempDirs;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * One Kafka broker in KRaft mode (broker and controller in one node) in this JVM, from the Maven
 * artifacts (declare {@code org.apache.kafka:kafka_2.13}, {@code kafka-metadata},
 * {@code kafka-server-common} and {@code kafka-server}): the log directory is formatted as
 * {@code kafka-storage format} would, then {@link KafkaRaftServer} starts. {@link #shared()} is
 * started once per test JVM on first use and stopped by a shutdown hook, which then deletes its log
 * directory (deleting it from a hook of its own, which runs at the same time, fails the broker's
 * log directory, and Kafka then halts the JVM with a non-zero exit); a test may stop and
 * restart it (test classes run one at a time), or start a broker of its own with {@link #start()}.
 * Settings are the smallest that work on one node (replication factor 1, one offsets partition, no
 * rebalance delay), with share groups on. A restart keeps the log directory and the ports.
 */
public final class EmbeddedKafka implements AutoCloseable {
    private static final class Holder {
        static final EmbeddedKafka SHARED = start();

        static {
            Runtime.getRuntime().addShutdownHook(new Thread(SHARED::close));
        }
    }

    private final KafkaConfig config;
    private final String bootstrap;
    private final Path dir;
    private KafkaRaftServer server;

    private EmbeddedKafka(KafkaConfig config, String bootstrap, Path dir) {
        this.config = config;
        this.bootstrap = bootstrap;
        this.dir = dir;
    }

    /**
     * The broker every test class shares.
     *
     * @return the running (or, if a test stopped it, stopped) broker
     */
    public static EmbeddedKafka shared() {
        return Holder.SHARED;
    }

    /**
     * The shared broker's bootstrap address.
     *
     * @return {@code localhost:port}
     */
    public static String bootstrap() {
        return shared().bootstrapServers();
    }

    /**
     * Formats a fresh log directory and starts a broker of its own on free ports.
     *
     * @return the running broker; the caller closes it
     */
    public static EmbeddedKafka start() {
        try {
            Path dir = TempDirs.createOwned("idem-kafka-");
            int brokerPort = FreePorts.next();
            int controllerPort = FreePorts.next();
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
            // Share groups (KIP-932; on by default from metadata version 4.2): their state topic
            // on one node, and record locks the tests may shorten to a second per group.
            p.put("share.coordinator.state.topic.replication.factor", "1");
            p.put("share.coordinator.state.topic.min.isr", "1");
            p.put("share.coordinator.state.topic.num.partitions", "1");
            p.put("group.share.min.record.lock.duration.ms", "1000");
            // Members get their assignment in well under a second, and a killed one leaves in seconds.
            p.put("group.share.min.heartbeat.interval.ms", "200");
            p.put("group.share.heartbeat.interval.ms", "200");
            p.put("group.share.assignment.interval.ms", "100");
            p.put("group.share.min.session.timeout.ms", "6000");
            p.put("group.share.session.timeout.ms", "6000");
            KafkaConfig config = KafkaConfig.fromProps(p, false);
            new Formatter().setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
                    .setNodeId(1).setClusterId(Uuid.randomUuid().toString())
                    .setDirectories(List.of(dir.toString())).setMetadataLogDirectory(dir.toString())
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                    .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
                    .setControllerListenerName("CONTROLLER").run();
            EmbeddedKafka kafka = new EmbeddedKafka(config, "localhost:" + brokerPort, dir);
            kafka.startServer();
            return kafka;
        } catch (Exception e) {
            throw new IllegalStateException("Kafka did not start", e);
        }
    }

    /**
     * This broker's bootstrap address.
     *
     * @return {@code localhost:port}
     */
    public String bootstrapServers() {
        return bootstrap;
    }

    private synchronized void startServer() {
        server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
    }

    /** Stops the broker; its log directory and ports are kept for {@link #restart()}. */
    public synchronized void stop() {
        if (server != null) {
            server.shutdown();
            server.awaitShutdown();
            server = null;
        }
    }

    /** Starts the stopped broker again on the same log directory and ports. */
    public synchronized void restart() {
        if (server != null) {
            throw new IllegalStateException("the broker is running");
        }
        startServer();
    }

    /** Restarts the broker if a test left it stopped. */
    public synchronized void ensureRunning() {
        if (server == null) {
            startServer();
        }
    }

    /** Stops the broker (see {@link #stop()}), then deletes its log directory. */
    @Override
    public synchronized void close() {
        stop();
        TempDirs.delete(dir);
    }
}
