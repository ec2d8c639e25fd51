package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.Jedis;
import redis.embedded.RedisServer;

/**
 * The optional WAIT after claim, complete and lease extension, pipelined behind the script on the
 * same connection by each client library: against a primary with one real replica, and on the
 * cluster, whose masters have none.
 */
class RedisWaitForReplicasTest {
    private static RedisServer primary;
    private static RedisServer replica;
    private static int primaryPort;

    @BeforeAll
    static void startPrimaryAndReplica() {
        primaryPort = EmbeddedRedis.freePort();
        primary = EmbeddedRedis.server(primaryPort, false, true);
        int replicaPort = EmbeddedRedis.freePort();
        replica = EmbeddedRedis.server(replicaPort, false, true, "replicaof " + EmbeddedRedis.HOST + " " + primaryPort);
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
    static void stopServers() throws IOException {
        replica.stop();
        primary.stop();
    }

    private static IdempotencyKey key() {
        return IdempotencyKey.of("wait-" + UUID.randomUUID(), "op", "k");
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void completeWaitsForTheReplicaAndSucceedsWhenItAcknowledges(Client client) {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(client.ownClient(primaryPort))
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
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void aClaimTooFewReplicasAcknowledgedFailsAndIsGivenBack(Client client) {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(client.ownClient(primaryPort))
                .waitForReplicas(2, Duration.ofMillis(200)).build();
                RedisIdempotencyStore plain = RedisIdempotencyStore.create(client.ownClient(primaryPort))) {
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
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void tooFewAcknowledgementsAreARetryableFailureWithTheOutcomeKeptOnThePrimary(Client client) {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(client.ownClient(primaryPort))
                .waitForReplicas(2, Duration.ofMillis(200)).build();
                RedisIdempotencyStore plain = RedisIdempotencyStore.create(client.ownClient(primaryPort))) {
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
}
