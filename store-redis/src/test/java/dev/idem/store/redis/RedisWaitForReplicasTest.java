package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.embedded.RedisServer;

/** The optional WAIT after claim, complete and lease extension, against a primary with one real replica. */
@Timeout(60)
class RedisWaitForReplicasTest {
    private static RedisServer primary;
    private static RedisServer replica;
    private static int primaryPort;
    private static int replicaPort;
    private static RedisClient client;

    @BeforeAll
    static void startPrimaryAndReplica() {
        primaryPort = EmbeddedRedis.freePort();
        primary = EmbeddedRedis.server(primaryPort, false, true);
        replicaPort = EmbeddedRedis.freePort();
        replica = EmbeddedRedis.server(replicaPort, false, true, "replicaof " + EmbeddedRedis.HOST + " " + primaryPort);
        client = EmbeddedRedis.client(primaryPort);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!client.info("replication").contains("state=online")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("replica did not come online: " + client.info("replication"));
            }
            EmbeddedRedis.sleep(50);
        }
    }

    @AfterAll
    static void stopServers() throws IOException {
        client.close();
        replica.stop();
        primary.stop();
    }

    private static IdempotencyKey key() {
        return IdempotencyKey.of("wait-" + UUID.randomUUID(), "op", "k");
    }

    @Test
    void completeWaitsForTheReplicaAndSucceedsWhenItAcknowledges() {
        RedisIdempotencyStore store = RedisIdempotencyStore.builder(client)
                .waitForReplicas(1, Duration.ofSeconds(5)).build();
        IdempotencyKey k = key();
        store.claim(k, new byte[] {1}, 3, Duration.ofSeconds(30), Duration.ofMinutes(1));
        client.scriptFlush();
        assertThat(store.complete(k, 3, new byte[] {9}, Duration.ofMinutes(1))).isTrue();
        assertThat(store.complete(k, 4, new byte[] {9}, Duration.ofMinutes(1))).isFalse();
    }

    @Test
    void aClaimTooFewReplicasAcknowledgedFailsAndIsGivenBack() {
        RedisIdempotencyStore store = RedisIdempotencyStore.builder(client)
                .waitForReplicas(2, Duration.ofMillis(200)).build();
        IdempotencyKey k = key();
        assertThatThrownBy(() -> store.claim(k, new byte[] {1}, 3, Duration.ofSeconds(30), Duration.ofMinutes(1)))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("1 of 2").hasMessageContaining("released")
                .satisfies(e -> assertThat(((StoreUnavailableException) e).retryable()).isTrue());
        assertThat(store.find(k).orElseThrow().state()).isEqualTo(RecordState.RELEASED);
        // A claim that finds someone else's record is an answer, not a write: it does not fail.
        RedisIdempotencyStore.create(client).claim(k, new byte[] {1}, 4, Duration.ofSeconds(30), Duration.ofMinutes(1));
        assertThat(store.claim(k, new byte[] {1}, 5, Duration.ofSeconds(30), Duration.ofMinutes(1)).record()
                .fencingToken()).isEqualTo(4);
    }

    @Test
    void tooFewAcknowledgementsAreARetryableFailureWithTheOutcomeKeptOnThePrimary() {
        RedisIdempotencyStore store = RedisIdempotencyStore.builder(client)
                .waitForReplicas(2, Duration.ofMillis(200)).build();
        IdempotencyKey k = key();
        RedisIdempotencyStore.create(client).claim(k, new byte[] {1}, 3, Duration.ofSeconds(30), Duration.ofMinutes(1));
        assertThatThrownBy(() -> store.complete(k, 3, new byte[] {9}, Duration.ofMinutes(1)))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("1 of 2")
                .satisfies(e -> assertThat(((StoreUnavailableException) e).retryable()).isTrue());
        assertThat(store.find(k).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    /**
     * The replica stays connected but stops acknowledging (its process is stopped, as a replica
     * stalled by a fork or a slow disk would be). A completion written by one connection is on the
     * primary only; a duplicate asking through another connection (which wrote nothing, so a bare
     * WAIT would return at once) must not be given it, and neither may the holder's repeated
     * completion pass for acknowledged. Once the replica acknowledges again, both succeed.
     */
    @Test
    void answersFromAnotherConnectionsWriteWaitForTheReplicasToo() throws Exception {
        IdempotencyKey k = key();
        RedisIdempotencyStore plain = RedisIdempotencyStore.create(client);
        assertThat(plain.claim(k, new byte[] {1}, 3, Duration.ofSeconds(30), Duration.ofMinutes(1)).claimed()).isTrue();
        try (RedisClient fresh = EmbeddedRedis.client(primaryPort)) {
            RedisIdempotencyStore waiting = RedisIdempotencyStore.builder(fresh)
                    .waitForReplicas(1, Duration.ofMillis(200)).build();
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

        static Frozen replica() throws Exception {
            String pid;
            try (RedisClient r = EmbeddedRedis.client(replicaPort)) {
                pid = r.info("server").lines().filter(l -> l.startsWith("process_id:")).findFirst().orElseThrow()
                        .substring("process_id:".length()).trim();
            }
            signal("-STOP", pid);
            return new Frozen(pid);
        }

        @Override
        public void close() throws Exception {
            signal("-CONT", pid);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            try (Jedis j = new Jedis(new HostAndPort(EmbeddedRedis.HOST, primaryPort), EmbeddedRedis.clientConfig())) {
                j.set("frozen-marker", UUID.randomUUID().toString());
                while (j.waitReplicas(1, 1000) < 1) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("replica did not catch up after SIGCONT");
                    }
                }
            }
        }

        private static void signal(String signal, String pid) throws Exception {
            Process p = new ProcessBuilder("kill", signal, pid).inheritIO().start();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + pid + " failed");
            }
        }
    }
}
