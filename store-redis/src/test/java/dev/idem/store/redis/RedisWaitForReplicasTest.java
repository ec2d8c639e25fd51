package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import dev.idem.store.redis.spring.SpringDataRedisScriptClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import redis.clients.jedis.Jedis;
import redis.embedded.RedisServer;

/**
 * The optional WAIT after claim, complete and lease extension, pipelined behind the script on the
 * same connection by each client library (and by Spring Data Redis over Jedis and over Lettuce):
 * against a primary with one real replica, and on the cluster, whose masters have none.
 */
@Timeout(120)
class RedisWaitForReplicasTest {
    private static RedisServer primary;
    private static RedisServer replica;
    private static int primaryPort;
    private static int replicaPort;
    private static final List<DisposableBean> FACTORIES = new ArrayList<>();

    /**
     * The clients the standalone tests wait through: the libraries under test and, in the default
     * run (whose Jedis and Lettuce Spring Data Redis supports), Spring Data Redis over each.
     */
    enum Via {
        JEDIS, LETTUCE, SPRING_JEDIS, SPRING_LETTUCE;

        /** A new client of this kind for the server on {@code port}. */
        RedisScriptClient open(int port) {
            switch (this) {
                case JEDIS:
                    return Client.JEDIS.ownClient(port);
                case LETTUCE:
                    return Client.LETTUCE.ownClient(port);
                case SPRING_JEDIS:
                    return SpringDataRedisScriptClient.of(factory(new JedisConnectionFactory(config(port))));
                default:
                    return SpringDataRedisScriptClient.of(factory(new LettuceConnectionFactory(config(port))));
            }
        }

        static Stream<Via> underTest() {
            Stream<Via> libraries = Client.underTest().map(c -> Via.valueOf(c.name()));
            return System.getProperty("idem.test.clients", "").isBlank()
                    ? Stream.concat(libraries, Stream.of(SPRING_JEDIS, SPRING_LETTUCE)) : libraries;
        }

        private static RedisStandaloneConfiguration config(int port) {
            return new RedisStandaloneConfiguration(EmbeddedRedis.HOST, port);
        }

        private static <T extends InitializingBean & DisposableBean> T factory(T factory) {
            synchronized (FACTORIES) {
                FACTORIES.add(factory);
            }
            return SpringFactories.started(factory);
        }
    }

    @BeforeAll
    static void startPrimaryAndReplica() {
        primaryPort = EmbeddedRedis.freePort();
        primary = EmbeddedRedis.server(primaryPort, true);
        replicaPort = EmbeddedRedis.freePort();
        replica = EmbeddedRedis.server(replicaPort, true, "replicaof " + EmbeddedRedis.HOST + " " + primaryPort);
        try (Jedis admin = EmbeddedRedis.admin(primaryPort)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!admin.info("replication").contains("state=online")) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("replica did not come online: " + admin.info("replication"));
                }
                EmbeddedRedis.sleep(50);
            }
        }
    }

    @AfterAll
    static void stopServers() throws Exception {
        for (DisposableBean f : FACTORIES) {
            f.destroy();
        }
        replica.stop();
        primary.stop();
    }

    private static IdempotencyKey key() {
        return IdempotencyKey.of("wait-" + UUID.randomUUID(), "op", "k");
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.RedisWaitForReplicasTest$Via#underTest")
    void completeWaitsForTheReplicaAndSucceedsWhenItAcknowledges(Via via) {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(via.open(primaryPort))
                .waitForReplicas(1, Duration.ofSeconds(5)).build();
                Jedis admin = EmbeddedRedis.admin(primaryPort)) {
            IdempotencyKey k = key();
            assertThat(store.claim(k, new byte[] {1}, 3, Duration.ofSeconds(30), Duration.ofMinutes(1)).claimed())
                    .isTrue();
            admin.scriptFlush();
            assertThat(store.complete(k, 3, new byte[] {9}, Duration.ofMinutes(1))).isTrue();
            assertThat(store.complete(k, 4, new byte[] {9}, Duration.ofMinutes(1))).isFalse();
            assertThat(store.extendLease(k, 3, Duration.ofSeconds(5))).isEmpty();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.RedisWaitForReplicasTest$Via#underTest")
    void aClaimTooFewReplicasAcknowledgedFailsAndIsGivenBack(Via via) {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(via.open(primaryPort))
                .waitForReplicas(2, Duration.ofMillis(200)).build();
                RedisIdempotencyStore plain = RedisIdempotencyStore.create(via.open(primaryPort))) {
            IdempotencyKey k = key();
            assertThatThrownBy(() -> store.claim(k, new byte[] {1}, 3, Duration.ofSeconds(30), Duration.ofMinutes(1)))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("1 of 2").hasMessageContaining("released")
                    .satisfies(e -> assertThat(((StoreUnavailableException) e).retryable()).isTrue());
            assertThat(store.find(k).orElseThrow().state()).isEqualTo(RecordState.RELEASED);
            // A claim that finds someone else's record is an answer, not a write: it does not fail.
            plain.claim(k, new byte[] {1}, 4, Duration.ofSeconds(30), Duration.ofMinutes(1));
            assertThat(store.claim(k, new byte[] {1}, 5, Duration.ofSeconds(30), Duration.ofMinutes(1)).record()
                    .fencingToken()).isEqualTo(4);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.RedisWaitForReplicasTest$Via#underTest")
    void tooFewAcknowledgementsAreARetryableFailureWithTheOutcomeKeptOnThePrimary(Via via) {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(via.open(primaryPort))
                .waitForReplicas(2, Duration.ofMillis(200)).build();
                RedisIdempotencyStore plain = RedisIdempotencyStore.create(via.open(primaryPort))) {
            IdempotencyKey k = key();
            plain.claim(k, new byte[] {1}, 3, Duration.ofSeconds(30), Duration.ofMinutes(1));
            assertThatThrownBy(() -> store.complete(k, 3, new byte[] {9}, Duration.ofMinutes(1)))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("1 of 2")
                    .satisfies(e -> assertThat(((StoreUnavailableException) e).retryable()).isTrue());
            assertThat(store.find(k).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void onTheClusterWaitRunsOnTheNodeOfTheKey(Client client) {
        // The cluster's masters have no replicas: WAIT 1 answers 0 on whichever master the script ran.
        RedisIdempotencyStore store = RedisIdempotencyStore.builder(client.cluster(0))
                .waitForReplicas(1, Duration.ofMillis(50)).build();
        for (int i = 0; i < 6; i++) {
            IdempotencyKey k = IdempotencyKey.of("wait-cluster-" + UUID.randomUUID(), "op", "k" + i);
            assertThatThrownBy(() -> store.claim(k, new byte[] {1}, 3, Duration.ofSeconds(30), Duration.ofMinutes(1)))
                    .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("0 of 1");
            assertThat(store.find(k).orElseThrow().state()).isEqualTo(RecordState.RELEASED);
        }
    }

    /**
     * The replica stays connected but stops acknowledging (its process is stopped, as a replica
     * stalled by a fork or a slow disk would be). A completion written by one connection is on the
     * primary only; a duplicate asking through another connection (which wrote nothing, so a bare
     * WAIT would return at once) must not be given it, and neither may the holder's repeated
     * completion pass for acknowledged. Once the replica acknowledges again, both succeed.
     */
    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.RedisWaitForReplicasTest$Via#underTest")
    @SuppressWarnings("try") // the replica stays frozen while the block runs; the resource is never read
    void answersFromAnotherConnectionsWriteWaitForTheReplicasToo(Via via) throws Exception {
        IdempotencyKey k = key();
        try (RedisIdempotencyStore plain = RedisIdempotencyStore.create(via.open(primaryPort));
                RedisIdempotencyStore waiting = RedisIdempotencyStore.builder(via.open(primaryPort))
                        .waitForReplicas(1, Duration.ofMillis(200)).build()) {
            assertThat(plain.claim(k, new byte[] {1}, 3, Duration.ofSeconds(30), Duration.ofMinutes(1)).claimed())
                    .isTrue();
            try (Frozen frozen = Frozen.replica()) {
                assertThat(plain.complete(k, 3, new byte[] {9}, Duration.ofMinutes(1))).isTrue();
                assertThatThrownBy(() -> waiting.claim(k, new byte[] {1}, 4, Duration.ofSeconds(30),
                        Duration.ofMinutes(1))).isInstanceOf(StoreUnavailableException.class)
                        .hasMessageContaining("0 of 1").hasMessageContaining("COMPLETED");
                assertThatThrownBy(() -> waiting.complete(k, 3, new byte[] {9}, Duration.ofMinutes(1)))
                        .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("0 of 1");
            }
            assertThat(waiting.claim(k, new byte[] {1}, 5, Duration.ofSeconds(30), Duration.ofMinutes(1)).record()
                    .outcome()).containsExactly(9);
            assertThat(waiting.complete(k, 3, new byte[] {9}, Duration.ofMinutes(1))).isTrue();
        }
    }

    /** The replica's process stopped (SIGSTOP) until closed (SIGCONT), then caught up again. */
    private static final class Frozen implements AutoCloseable {
        private final String pid;

        private Frozen(String pid) {
            this.pid = pid;
        }

        static Frozen replica() throws IOException {
            String pid;
            try (Jedis r = EmbeddedRedis.admin(replicaPort)) {
                pid = r.info("server").lines().filter(l -> l.startsWith("process_id:")).findFirst().orElseThrow()
                        .substring("process_id:".length()).trim();
            }
            signal("-STOP", pid);
            return new Frozen(pid);
        }

        @Override
        public void close() throws IOException {
            signal("-CONT", pid);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            try (Jedis j = EmbeddedRedis.admin(primaryPort)) {
                j.set("frozen-marker", UUID.randomUUID().toString());
                while (j.waitReplicas(1, 1000) < 1) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("replica did not catch up after SIGCONT");
                    }
                }
            }
        }

        private static void signal(String signal, String pid) throws IOException {
            Process p = new ProcessBuilder("kill", signal, pid).inheritIO().start();
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    throw new IllegalStateException("kill " + signal + " " + pid + " failed");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for kill " + signal + " " + pid, e);
            }
        }
    }
}
