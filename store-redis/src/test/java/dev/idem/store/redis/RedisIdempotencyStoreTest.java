package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.store.redis.internal.RecordKeys;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/** What the Redis store adds to the shared contract, on the shared standalone server. */
@Timeout(60)
class RedisIdempotencyStoreTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final byte[] FP = "fp".getBytes(StandardCharsets.UTF_8);

    private final RedisClient redis = StandaloneClients.A;
    private final RedisIdempotencyStore store = RedisIdempotencyStore.create(redis);
    private final String scope = "store-" + UUID.randomUUID();

    private IdempotencyKey key(String token) {
        return IdempotencyKey.of(scope, "op", token);
    }

    private static byte[] recordKey(String prefix, IdempotencyKey k) {
        return new RecordKeys(prefix).of(k);
    }

    @Test
    void everyRecordCarriesARedisExpiryFromTheScriptThatWroteIt() {
        IdempotencyKey k = key("ttl");
        byte[] rk = recordKey(RedisIdempotencyStore.DEFAULT_KEY_PREFIX, k);
        store.claim(k, FP, 1, LEASE, TTL);
        assertThat(redis.pttl(rk)).isBetween(TTL.toMillis() - 5_000, TTL.toMillis());

        Duration shortTtl = Duration.ofMinutes(2);
        assertThat(store.complete(k, 1, new byte[] {1}, shortTtl)).isTrue();
        assertThat(redis.pttl(rk)).isBetween(shortTtl.toMillis() - 5_000, shortTtl.toMillis());

        IdempotencyKey longLease = key("lease");
        store.claim(longLease, FP, 2, Duration.ofMinutes(20), TTL);
        // The record outlives its lease even when the TTL asked for less.
        assertThat(redis.pttl(recordKey(RedisIdempotencyStore.DEFAULT_KEY_PREFIX, longLease)))
                .isGreaterThan(TTL.toMillis());
    }

    @Test
    void scriptsAreReloadedAfterTheServerForgetsThem() {
        IdempotencyKey k = key("noscript");
        redis.scriptFlush();
        assertThat(store.claim(k, FP, 7, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);
        redis.scriptFlush();
        assertThat(store.complete(k, 7, new byte[] {4}, TTL)).isTrue();
        redis.scriptFlush();
        assertThat(store.find(k)).get().extracting(r -> r.state()).isEqualTo(RecordState.COMPLETED);
        redis.scriptFlush();
        assertThat(store.release(k, 7)).isFalse();
        redis.scriptFlush();
        assertThat(store.extendLease(k, 7, LEASE)).isEmpty();
    }

    @Test
    void aRetriedClaimWithTheSameTokenGetsItsOwnWinBack() {
        // A client that retries after a lost reply re-sends the same token; it must not be
        // told that its own record is someone else's request in progress.
        IdempotencyKey k = key("retry");
        ClaimResult first = store.claim(k, FP, 99, LEASE, TTL);
        ClaimResult retry = store.claim(k, FP, 99, LEASE, TTL);
        assertThat(retry.status()).isEqualTo(Status.ACQUIRED);
        assertThat(retry.record().fencingToken()).isEqualTo(99);
        assertThat(retry.record().leaseExpiresAt()).isEqualTo(first.record().leaseExpiresAt());
        assertThat(store.claim(k, FP, 100, LEASE, TTL).status()).isEqualTo(Status.EXISTING);
    }

    @Test
    void aCorruptRecordIsAnErrorNeverAbsent() {
        IdempotencyKey k = key("corrupt");
        byte[] rk = recordKey(RedisIdempotencyStore.DEFAULT_KEY_PREFIX, k);
        redis.hset(rk, "s".getBytes(StandardCharsets.UTF_8), "I".getBytes(StandardCharsets.UTF_8));
        redis.pexpire(rk, 60_000);
        for (Runnable op : List.<Runnable>of(
                () -> store.claim(k, FP, 1, LEASE, TTL),
                () -> store.find(k),
                () -> store.complete(k, 1, new byte[] {1}, TTL),
                () -> store.release(k, 1),
                () -> store.extendLease(k, 1, LEASE))) {
            assertThatThrownBy(op::run).isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("IDEMCORRUPT")
                    .satisfies(e -> assertThat(((StoreUnavailableException) e).retryable()).isFalse());
        }
        assertThat(redis.hgetAll(rk)).hasSize(1);
    }

    @Test
    void aBadStateLetterOrNumberIsAnUnreadableReply() {
        IdempotencyKey k = key("badstate");
        byte[] rk = recordKey(RedisIdempotencyStore.DEFAULT_KEY_PREFIX, k);
        store.claim(k, FP, 1, LEASE, TTL);
        redis.hset(rk, "t".getBytes(StandardCharsets.UTF_8), "not-a-number".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> store.find(k)).isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("record token");
    }

    @Test
    void aKeyHoldingAnotherTypeIsAnError() {
        IdempotencyKey k = key("wrongtype");
        byte[] rk = recordKey(RedisIdempotencyStore.DEFAULT_KEY_PREFIX, k);
        redis.set(rk, "someone else's string".getBytes(StandardCharsets.UTF_8));
        redis.pexpire(rk, 60_000);
        assertThatThrownBy(() -> store.claim(k, FP, 1, LEASE, TTL)).isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("WRONGTYPE");
        assertThatThrownBy(() -> store.find(k)).isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void anUnreachableServerIsARetryableStoreFailure() {
        try (RedisClient nowhere = EmbeddedRedis.client(EmbeddedRedis.freePort())) {
            IdempotencyStore s = RedisIdempotencyStore.create(nowhere);
            assertThatThrownBy(() -> s.claim(key("down"), FP, 1, LEASE, TTL))
                    .isInstanceOf(StoreUnavailableException.class)
                    .satisfies(e -> assertThat(((StoreUnavailableException) e).retryable()).isTrue());
            assertThatThrownBy(() -> s.find(key("down"))).isInstanceOf(StoreUnavailableException.class);
        }
    }

    @Test
    void aServerThatNeverAnswersTimesOutIntoARetryableStoreFailure() throws Exception {
        // The kernel completes the handshake into the backlog; nothing ever reads or replies.
        try (ServerSocket blackHole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                RedisClient silent = RedisClient.builder().hostAndPort(EmbeddedRedis.HOST, blackHole.getLocalPort())
                        .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis(300)
                                .socketTimeoutMillis(300).build())
                        .build()) {
            IdempotencyStore s = RedisIdempotencyStore.create(silent);
            assertThatThrownBy(() -> s.claim(key("silent"), FP, 1, LEASE, TTL))
                    .isInstanceOf(StoreUnavailableException.class)
                    .satisfies(e -> assertThat(((StoreUnavailableException) e).retryable()).isTrue())
                    .hasRootCauseInstanceOf(SocketTimeoutException.class);
        }
    }

    @Test
    void theKeyPrefixSeparatesStoresOnOneServer() {
        RedisIdempotencyStore tenantA = RedisIdempotencyStore.builder(redis).keyPrefix("app-a:").build();
        RedisIdempotencyStore tenantB = RedisIdempotencyStore.builder(redis).keyPrefix("app-b:").build();
        IdempotencyKey k = key("shared");
        assertThat(tenantA.claim(k, FP, 1, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);
        assertThat(tenantB.claim(k, FP, 2, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);
        assertThat(redis.exists(recordKey("app-a:", k))).isTrue();
        assertThat(redis.exists(recordKey("app-b:", k))).isTrue();
        assertThat(new String(recordKey("app-a:", k), StandardCharsets.UTF_8)).startsWith("app-a:{");
    }

    @Test
    void badArgumentsAreRejectedAndNothingIsStored() {
        IdempotencyKey k = key("bad");
        assertThatThrownBy(() -> store.claim(k, null, 1, LEASE, TTL)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("fingerprint");
        assertThatThrownBy(() -> store.claim(k, FP, 1, Duration.ZERO, TTL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
        assertThatThrownBy(() -> store.claim(k, FP, 1, LEASE, Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
        assertThatThrownBy(() -> store.claim(k, FP, 1, LEASE, Duration.ofDays(40_000)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
        assertThat(store.find(k)).isEmpty();

        RedisIdempotencyStore small = RedisIdempotencyStore.builder(redis).maxOutcomeBytes(4).build();
        small.claim(k, FP, 1, LEASE, TTL);
        assertThatThrownBy(() -> small.complete(k, 1, new byte[5], TTL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("5 bytes");
        assertThatThrownBy(() -> small.complete(k, 1, null, TTL)).isInstanceOf(NullPointerException.class);
        assertThat(small.find(k).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(small.capabilities().maxOutcomeBytes()).isEqualTo(4);
        assertThatThrownBy(() -> store.purgeExpired(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theBuilderRejectsBadSettingsAtOnce() {
        var b = RedisIdempotencyStore.builder(redis);
        assertThatThrownBy(() -> RedisIdempotencyStore.builder(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.keyPrefix("app{1}:")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("app{1}:");
        assertThatThrownBy(() -> b.keyPrefix("x".repeat(65))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.keyPrefix("a\nb")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.maxOutcomeBytes(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
        assertThatThrownBy(() -> b.waitForReplicas(-1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThatThrownBy(() -> b.waitForReplicas(1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void capabilitiesSayServerClockAndNativeExpiry() {
        assertThat(store.capabilities().serverClock()).isTrue();
        assertThat(store.capabilities().nativeExpiry()).isTrue();
        assertThat(store.capabilities().maxOutcomeBytes()).isEqualTo(RedisIdempotencyStore.DEFAULT_MAX_OUTCOME_BYTES);
        assertThat(store.purgeExpired(100)).isZero();
    }

    @Test
    void closingTheStoreLeavesTheUsersClientOpen() {
        RedisIdempotencyStore.create(redis).close();
        assertThat(redis.ping()).isEqualTo("PONG");
    }
}
