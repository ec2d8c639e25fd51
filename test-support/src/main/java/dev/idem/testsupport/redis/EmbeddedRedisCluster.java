package dev.idem.testsupport.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import redis.embedded.RedisServer;

/**
 * A Redis Cluster of real redis-server processes ({@link EmbeddedRedisServer}), masters only, no
 * persistence: the 16384 slots split evenly in order ({@link #masterOfSlot}), the nodes
 * introduced to each other, ready when every node reports {@code cluster_state:ok} and knows all
 * the others (a bounded wait). Set up over a few lines of RESP, so no Redis client is needed.
 * {@link #shared()} has three masters, is started once per JVM and killed when it exits;
 * {@link #start(int)} gives a caller a cluster of its own to {@link #close()}.
 */
public final class EmbeddedRedisCluster implements AutoCloseable {
    /** The number of hash slots a cluster has. */
    public static final int SLOTS = 16384;
    private static final Duration READY = Duration.ofSeconds(60);

    private final List<Integer> ports;
    private final List<RedisServer> servers;

    private EmbeddedRedisCluster(List<Integer> ports, List<RedisServer> servers) {
        this.ports = List.copyOf(ports);
        this.servers = servers;
    }

    /**
     * The three-master cluster shared by every test in this JVM.
     *
     * @return the started cluster; do not close it
     */
    public static EmbeddedRedisCluster shared() {
        return Shared.CLUSTER;
    }

    /**
     * Starts a cluster of {@code masters} nodes of the caller's own, each on a free port.
     *
     * @param masters how many masters (at least 1)
     * @return the ready cluster; the caller closes it
     * @throws IllegalStateException if it is not ready within a minute
     */
    public static EmbeddedRedisCluster start(int masters) {
        if (masters < 1) {
            throw new IllegalArgumentException("masters must be at least 1: " + masters);
        }
        List<Integer> ports = new ArrayList<>();
        List<RedisServer> servers = new ArrayList<>();
        EmbeddedRedisCluster cluster = new EmbeddedRedisCluster(List.of(), servers);
        try {
            for (int i = 0; i < masters; i++) {
                int port = EmbeddedRedisServer.freePort();
                servers.add(EmbeddedRedisServer.start(port, true, "cluster-enabled yes",
                        "cluster-config-file nodes-" + port + ".conf", "cluster-node-timeout 5000"));
                ports.add(port);
            }
            for (int i = 0; i < masters; i++) {
                List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                for (int slot = firstSlot(i, masters); slot < firstSlot(i + 1, masters); slot++) {
                    command.add(Integer.toString(slot));
                }
                try (RespConnection node = new RespConnection(ports.get(i))) {
                    node.call(command);
                }
            }
            try (RespConnection first = new RespConnection(ports.get(0))) {
                for (int i = 1; i < masters; i++) {
                    first.call(List.of("CLUSTER", "MEET", EmbeddedRedisServer.HOST, Integer.toString(ports.get(i))));
                }
            }
            awaitReady(ports);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return new EmbeddedRedisCluster(ports, servers);
    }

    private static void awaitReady(List<Integer> ports) {
        long deadline = System.nanoTime() + READY.toNanos();
        for (int port : ports) {
            try (RespConnection node = new RespConnection(port)) {
                while (true) {
                    String info = node.call(List.of("CLUSTER", "INFO"));
                    if (info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + ports.size())) {
                        break;
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException("cluster not ready within " + READY + ": " + info);
                    }
                    pause();
                }
            }
        }
    }

    // Polling a gossip protocol: there is nothing to wait on but time (bounded by READY).
    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the cluster formed", e);
        }
    }

    /**
     * The masters' ports, in slot order: master {@code i} serves slots from
     * {@code firstSlot(i, n)} up to {@code firstSlot(i + 1, n)}.
     *
     * @return the ports
     */
    public List<Integer> ports() {
        return ports;
    }

    /**
     * The first slot master {@code master} of {@code masters} serves.
     *
     * @param master the master's index
     * @param masters how many masters the cluster has
     * @return the slot ({@link #SLOTS} for {@code master == masters})
     */
    public static int firstSlot(int master, int masters) {
        return SLOTS * master / masters;
    }

    /**
     * Which master (by index) serves {@code slot} in a cluster this class started.
     *
     * @param slot the slot
     * @param masters how many masters the cluster has
     * @return the master's index
     */
    public static int masterOfSlot(int slot, int masters) {
        for (int i = masters - 1; i >= 0; i--) {
            if (slot >= firstSlot(i, masters)) {
                return i;
            }
        }
        throw new IllegalArgumentException("slot " + slot);
    }

    /** Kills every node. */
    @Override
    public void close() {
        for (RedisServer server : servers) {
            try {
                server.stop();
            } catch (IOException | UncheckedIOException e) {
                // Killed at the end anyway.
            }
        }
    }

    private static final class Shared {
        static final EmbeddedRedisCluster CLUSTER = start(3);
    }
}
