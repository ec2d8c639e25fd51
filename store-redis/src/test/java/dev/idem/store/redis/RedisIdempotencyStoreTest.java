package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.store.redis.RedisKeyLayout;
import dev.idem.store.redis.jedis.JedisScriptClient;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * What the Redis store adds to the shared contract, on the shared standalone server, through each
 * client library; the server's side is read and changed through a separate admin connection.
 */
@Timeout(60)
class RedisIdempotencyStoreTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final byte[] FP = "fp".getBytes(StandardCharsets.UTF_8);

    private final Jedis redis = EmbeddedRedis.admin(EmbeddedRedis.standalonePort());
    private final String scope = "store-" + UUID.randomUUID();

    @AfterEach
    void closeAdmin() {
        redis.close();
    }

    private static RedisIdempotencyStore store(Client client) {
        return RedisIdempotencyStore.create(client.standalone(0));
    }

    private IdempotencyKey key(String token) {
        return IdempotencyKey.of(scope, "op", token);
    }

    private static byte[] recordKey(String prefix, IdempotencyKey k) {
        return RedisKeyLayout.withPrefix(prefix).redisKey(k);
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void everyRecordCarriesARedisExpiryFromTheScriptThatWroteIt(Client client) {
        RedisIdempotencyStore store = store(client);
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

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void scriptsAreReloadedAfterTheServerForgetsThem(Client client) {
        RedisIdempotencyStore store = store(client);
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

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void aRetriedClaimWithTheSameTokenGetsItsOwnWinBack(Client client) {
        RedisIdempotencyStore store = store(client);
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

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void aCorruptRecordIsAnErrorNeverAbsent(Client client) {
        RedisIdempotencyStore store = store(client);
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

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void aBadStateLetterOrNumberIsAnUnreadableReply(Client client) {
        RedisIdempotencyStore store = store(client);
        IdempotencyKey k = key("badstate");
        byte[] rk = recordKey(RedisIdempotencyStore.DEFAULT_KEY_PREFIX, k);
        store.claim(k, FP, 1, LEASE, TTL);
        redis.hset(rk, "t".getBytes(StandardCharsets.UTF_8), "not-a-number".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> store.find(k)).isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("record token");
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void aKeyHoldingAnotherTypeIsAnError(Client client) {
        RedisIdempotencyStore store = store(client);
        IdempotencyKey k = key("wrongtype");
        byte[] rk = recordKey(RedisIdempotencyStore.DEFAULT_KEY_PREFIX, k);
        redis.set(rk, "someone else's string".getBytes(StandardCharsets.UTF_8));
        redis.pexpire(rk, 60_000);
        assertThatThrownBy(() -> store.claim(k, FP, 1, LEASE, TTL)).isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("WRONGTYPE");
        assertThatThrownBy(() -> store.find(k)).isInstanceOf(StoreUnavailableException.class);
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void anUnreachableServerIsARetryableStoreFailure(Client client) {
        try (IdempotencyStore s = RedisIdempotencyStore.create(client.ownClient(EmbeddedRedis.freePort()))) {
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
                UnifiedJedis silent = JedisClients.standalone(new HostAndPort(EmbeddedRedis.HOST,
                        blackHole.getLocalPort()), DefaultJedisClientConfig.builder().connectionTimeoutMillis(300)
                        .socketTimeoutMillis(300).build())) {
            IdempotencyStore s = RedisIdempotencyStore.create(JedisScriptClient.of(silent));
            assertThatThrownBy(() -> s.claim(key("silent"), FP, 1, LEASE, TTL))
                    .isInstanceOf(StoreUnavailableException.class)
                    .satisfies(e -> assertThat(((StoreUnavailableException) e).retryable()).isTrue())
                    .hasRootCauseInstanceOf(SocketTimeoutException.class);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void theKeyPrefixSeparatesStoresOnOneServer(Client client) {
        RedisIdempotencyStore store = store(client);
        RedisIdempotencyStore tenantA = RedisIdempotencyStore.builder(client.standalone(0)).keyPrefix("app-a:").build();
        RedisIdempotencyStore tenantB = RedisIdempotencyStore.builder(client.standalone(1)).keyPrefix("app-b:").build();
        IdempotencyKey k = key("shared");
        assertThat(tenantA.claim(k, FP, 1, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);
        assertThat(tenantB.claim(k, FP, 2, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);
        assertThat(redis.exists(recordKey("app-a:", k))).isTrue();
        assertThat(redis.exists(recordKey("app-b:", k))).isTrue();
        assertThat(new String(recordKey("app-a:", k), StandardCharsets.UTF_8)).startsWith("app-a:{");
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void badArgumentsAreRejectedAndNothingIsStored(Client client) {
        RedisIdempotencyStore store = store(client);
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

        RedisIdempotencyStore small = RedisIdempotencyStore.builder(client.standalone(0)).maxOutcomeBytes(4).build();
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
        var b = RedisIdempotencyStore.builder(Client.JEDIS.standalone(0));
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

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void capabilitiesSayServerClockAndNativeExpiry(Client client) {
        RedisIdempotencyStore store = store(client);
        assertThat(store.capabilities().serverClock()).isTrue();
        assertThat(store.capabilities().nativeExpiry()).isTrue();
        assertThat(store.capabilities().maxOutcomeBytes()).isEqualTo(RedisIdempotencyStore.DEFAULT_MAX_OUTCOME_BYTES);
        assertThat(store.purgeExpired(100)).isZero();
    }

    @Test
    void closingTheStoreLeavesTheUsersClientOpen() {
        RedisIdempotencyStore.create(JedisScriptClient.of(StandaloneClients.A)).close();
        assertThat(StandaloneClients.A.ping()).isEqualTo("PONG");
        RedisIdempotencyStore.create(LettuceScriptClient.of(LettuceClients.Standalone.A)).close();
        assertThat(LettuceClients.Standalone.A.sync().ping()).isEqualTo("PONG");
        RedisIdempotencyStore onOwnConnection = RedisIdempotencyStore.create(
                LettuceScriptClient.of(LettuceClients.Standalone.CLIENT));
        assertThat(onOwnConnection.claim(key("own"), FP, 1, LEASE, TTL).claimed()).isTrue();
        onOwnConnection.close();
        assertThat(LettuceClients.Standalone.CLIENT.connect().sync().ping()).isEqualTo("PONG");
    }
}
