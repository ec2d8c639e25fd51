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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.RedisClient;
import redis.embedded.RedisServer;

/** The optional WAIT after claim, complete and lease extension, against a primary with one real replica. */
@Timeout(60)
class RedisWaitForReplicasTest {
    private static RedisServer primary;
    private static RedisServer replica;
    private static RedisClient client;

    @BeforeAll
    static void startPrimaryAndReplica() {
        int primaryPort = EmbeddedRedis.freePort();
        primary = EmbeddedRedis.server(primaryPort, false, true);
        int replicaPort = EmbeddedRedis.freePort();
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
}
