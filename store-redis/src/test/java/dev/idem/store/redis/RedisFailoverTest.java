package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.RecordState;
import dev.idem.store.redis.jedis.JedisScriptClient;
import dev.idem.testsupport.MutableClock;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.embedded.RedisServer;

/**
 * A failover that loses acknowledged writes, and what {@code waitForReplicas} changes. A primary
 * and its replica (the same redis-server 6.2 binary); the replica is cut off and promoted
 * ({@code REPLICAOF NO ONE}), as Sentinel does when the primary looks dead while it in fact
 * still serves some clients; those clients write to the old primary; then every client moves
 * to the new one. Without waiting, a claim and a completion that Redis acknowledged are gone
 * and the work runs a second time. With waiting, those calls fail instead (the claim is given
 * back, the work never starts), so no caller acts on a write the new primary lacks.
 */
@Timeout(60)
class RedisFailoverTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);

    private RedisServer primary;
    private RedisServer replica;
    private int primaryPort;
    private int replicaPort;
    private UnifiedJedis onPrimary;
    private UnifiedJedis onReplica;
    private final String scope = "failover-" + UUID.randomUUID();

    @BeforeEach
    void startPrimaryAndReplica() {
        primaryPort = EmbeddedRedis.freePort();
        primary = EmbeddedRedis.server(primaryPort, true);
        replicaPort = EmbeddedRedis.freePort();
        replica = EmbeddedRedis.server(replicaPort, true,
                "replicaof " + EmbeddedRedis.HOST + " " + primaryPort);
        onPrimary = EmbeddedRedis.client(primaryPort);
        onReplica = EmbeddedRedis.client(replicaPort);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!onPrimary.info("replication").contains("state=online")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("replica did not come online: " + onPrimary.info("replication"));
            }
            EmbeddedRedis.sleep(20);
        }
    }

    @AfterEach
    void stopServers() throws IOException {
        onPrimary.close();
        onReplica.close();
        replica.stop();
        primary.stop();
    }

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, "charge", k);
    }

    private static byte[] fp() {
        return new byte[] {1, 2, 3};
    }

    /** Waits until the replica has everything the primary had so far (a write then WAIT on one connection). */
    private void replicated() {
        try (Jedis j = new Jedis(new HostAndPort(EmbeddedRedis.HOST, primaryPort),
                EmbeddedRedis.clientConfig())) {
            j.set("replication-marker", UUID.randomUUID().toString());
            assertThat(j.waitReplicas(1, 5000)).as("replica acknowledged").isEqualTo(1);
        }
    }

    /** The replica is cut off and promoted while the old primary still serves some clients. */
    private void promoteReplica() {
        try (Jedis j = new Jedis(new HostAndPort(EmbeddedRedis.HOST, replicaPort), EmbeddedRedis.clientConfig())) {
            j.replicaofNoOne();
        }
    }

    @Test
    void withoutWaitingAFailoverLosesAnAcknowledgedClaimAndAnAcknowledgedCompletion() {
        RedisIdempotencyStore before = RedisIdempotencyStore.create(JedisScriptClient.of(onPrimary));
        IdempotencyKey settled = key("settled");
        before.claim(settled, fp(), 1, LEASE, TTL);
        assertThat(before.complete(settled, 1, new byte[] {9}, TTL)).isTrue();
        IdempotencyKey running = key("running");
        before.claim(running, fp(), 2, LEASE, TTL);
        replicated();

        promoteReplica();
        IdempotencyKey claimed = key("claimed");
        assertThat(before.claim(claimed, fp(), 3, LEASE, TTL).status()).as("acknowledged by the old primary")
                .isEqualTo(Status.ACQUIRED);
        assertThat(before.complete(running, 2, new byte[] {7}, TTL)).as("acknowledged by the old primary").isTrue();

        RedisIdempotencyStore after = RedisIdempotencyStore.create(JedisScriptClient.of(onReplica));
        assertThat(after.claim(settled, fp(), 10, LEASE, TTL).record().outcome()).containsExactly(9);
        ClaimResult second = after.claim(claimed, fp(), 11, LEASE, TTL);
        assertThat(second.status()).as("the acknowledged claim is gone: the work runs a second time")
                .isEqualTo(Status.ACQUIRED);
        assertThat(after.find(running).orElseThrow().state())
                .as("the acknowledged completion is gone: the record is back in progress")
                .isEqualTo(RecordState.IN_PROGRESS);
    }

    /**
     * The holder's completion reaches the old primary only (its wait fails, so the holder is told
     * the outcome was not stored); a duplicate then asks the old primary. Had it been given that
     * outcome, the failover would take it back: the holder's lease lapses on the new primary, a
     * takeover runs the work again and stores another outcome, and two callers of one key would
     * hold two outcomes. The duplicate must be refused (retryably) instead.
     */
    @Test
    void withWaitingNoDuplicateIsAnsweredFromACompletionTheReplicasMissed() {
        MutableClock clock = new MutableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
        RedisIdempotencyStore before = RedisIdempotencyStore.builder(JedisScriptClient.of(onPrimary)).clock(clock)
                .waitForReplicas(1, Duration.ofMillis(300)).build();
        IdempotencyKey k = key("completed-on-the-old-primary");
        assertThat(before.claim(k, fp(), 1, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);

        promoteReplica();
        assertThatThrownBy(() -> before.complete(k, 1, new byte[] {7}, TTL))
                .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("0 of 1");
        // The holder retries its completion: a repeat writes nothing new, and must not pass for acknowledged.
        assertThatThrownBy(() -> before.complete(k, 1, new byte[] {7}, TTL))
                .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("0 of 1");
        List<String> answers = new ArrayList<>();
        try {
            ClaimResult dup = before.claim(k, fp(), 2, LEASE, TTL);
            answers.add(dup.record().state() + " " + Arrays.toString(dup.record().outcome()));
        } catch (StoreUnavailableException e) {
            assertThat(e.retryable()).isTrue();
            answers.add("retry: " + e.getMessage());
        }

        RedisIdempotencyStore after = RedisIdempotencyStore.builder(JedisScriptClient.of(onReplica)).clock(clock)
                .build();
        clock.advance(LEASE);
        assertThat(after.claim(k, fp(), 3, LEASE, TTL).status()).as("the holder's lease lapsed on the new primary")
                .isEqualTo(Status.TAKEN_OVER);
        assertThat(after.complete(k, 3, new byte[] {8}, TTL)).isTrue();
        String settled = "COMPLETED " + Arrays.toString(after.find(k).orElseThrow().outcome());
        assertThat(answers).as("what the duplicate was told, against the outcome the key settled on (%s)", settled)
                .allMatch(a -> a.startsWith("retry: ") || a.equals(settled));
        assertThat(answers.get(0)).contains("0 of 1");
    }

    @Test
    void waitingForTheReplicaTurnsEveryWriteItMissedIntoAFailureTheCallerSees() {
        RedisIdempotencyStore before = RedisIdempotencyStore.builder(JedisScriptClient.of(onPrimary))
                .waitForReplicas(1, Duration.ofMillis(300)).build();
        IdempotencyKey settled = key("settled");
        before.claim(settled, fp(), 1, LEASE, TTL);
        assertThat(before.complete(settled, 1, new byte[] {9}, TTL)).isTrue();
        IdempotencyKey running = key("running");
        assertThat(before.claim(running, fp(), 2, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);

        promoteReplica();
        IdempotencyKey claimed = key("claimed");
        assertThatThrownBy(() -> before.claim(claimed, fp(), 3, LEASE, TTL))
                .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("0 of 1")
                .hasMessageContaining("released")
                .satisfies(e -> assertThat(((StoreUnavailableException) e).retryable()).isTrue());
        assertThat(before.find(claimed).orElseThrow().state()).as("given back on the old primary")
                .isEqualTo(RecordState.RELEASED);
        assertThatThrownBy(() -> before.extendLease(running, 2, LEASE))
                .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("0 of 1");
        assertThatThrownBy(() -> before.complete(running, 2, new byte[] {7}, TTL))
                .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("0 of 1");
        // A replay is not given from the cut-off primary: the replicas cannot confirm the record it read.
        assertThatThrownBy(() -> before.claim(settled, fp(), 4, LEASE, TTL))
                .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("0 of 1");
        // A duplicate of work in progress gets its 409 without waiting: it settles nothing.
        RedisIdempotencyStore.create(JedisScriptClient.of(onPrimary)).claim(key("busy"), fp(), 5, LEASE, TTL);
        assertThat(before.claim(key("busy"), fp(), 6, LEASE, TTL).status()).isEqualTo(Status.EXISTING);

        RedisIdempotencyStore after = RedisIdempotencyStore.create(JedisScriptClient.of(onReplica));
        assertThat(after.claim(settled, fp(), 10, LEASE, TTL).record().outcome()).containsExactly(9);
        // The key whose claim failed is free: its one execution starts now, under the new primary.
        assertThat(after.claim(claimed, fp(), 11, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);
        // The holder whose completion failed retries it there, with the same token, and it sticks.
        assertThat(after.claim(running, fp(), 12, LEASE, TTL).status()).isEqualTo(Status.EXISTING);
        assertThat(after.complete(running, 2, new byte[] {7}, TTL)).isTrue();
        assertThat(after.find(running).orElseThrow().outcome()).containsExactly(7);
    }
}
