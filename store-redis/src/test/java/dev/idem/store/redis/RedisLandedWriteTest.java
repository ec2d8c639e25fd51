package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.testsupport.redis.ReplyDroppingProxy;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A connection that dies after the server ran a script and before its reply arrived (a proxy
 * cuts it when the reply comes back), for every store operation through each client library.
 * Jedis reports the lost reply; Lettuce re-sends the command after reconnecting, so the script
 * runs twice. Either way the caller gets a retryable store error or the right answer, never a
 * wrong one; the landed write is there; the caller's retry with the same token is answered as
 * its own; and through the engine the work runs once.
 */
@Timeout(120)
class RedisLandedWriteTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final byte[] FP = {7, 7};

    private static ReplyDroppingProxy proxy;
    private final RedisIdempotencyStore observer = RedisIdempotencyStore.create(Client.JEDIS.standalone(1));
    private final String scope = "landed-" + UUID.randomUUID();

    @BeforeAll
    static void startProxy() {
        proxy = new ReplyDroppingProxy(EmbeddedRedis.standalonePort());
    }

    @AfterAll
    static void stopProxy() throws IOException {
        proxy.close();
    }

    private IdempotencyKey key(String token) {
        return IdempotencyKey.of(scope, "op", token);
    }

    /** A store through the proxy, every script already cached and a connection open. */
    private RedisIdempotencyStore throughProxy(Client client) {
        RedisIdempotencyStore store = RedisIdempotencyStore.create(client.ownClient(proxy.port()));
        IdempotencyKey warm = key("warm-" + UUID.randomUUID());
        store.claim(warm, FP, 1, LEASE, TTL);
        store.checkpoint(warm, 1, new byte[] {1});
        store.extendLease(warm, 1, LEASE);
        store.release(warm, 1);
        store.claim(warm, FP, 2, LEASE, TTL);
        store.complete(warm, 2, new byte[] {2}, TTL);
        store.find(warm);
        return store;
    }

    /**
     * Runs {@code call} on {@code store} with the next reply dropped: its answer, or empty if it
     * failed as it may. Then a read through the store opens its next connection, so that the
     * handshake of a new connection is never the reply a later call drops.
     */
    private <T> Optional<T> replyLost(RedisIdempotencyStore store, Supplier<T> call) throws InterruptedException {
        CountDownLatch dropped = proxy.dropNextReply();
        try {
            return Optional.of(call.get());
        } catch (StoreUnavailableException e) {
            assertThat(e.retryable()).as("a lost reply is retryable: %s", e).isTrue();
            return Optional.empty();
        } finally {
            ReplyDroppingProxy.awaitDropped(dropped);
            store.find(key("reconnect"));
        }
    }

    private StoredRecord stored(IdempotencyKey k) {
        return observer.find(k).orElseThrow();
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void aClaimWhoseReplyIsLostHasLandedAndIsTheCallersOwnOnRetry(Client client) throws Exception {
        try (RedisIdempotencyStore store = throughProxy(client)) {
            IdempotencyKey k = key("claim");
            Optional<ClaimResult> answer = replyLost(store, () -> store.claim(k, FP, 11, LEASE, TTL));
            answer.ifPresent(r -> {
                assertThat(r.status()).isEqualTo(Status.ACQUIRED);
                assertThat(r.record().fencingToken()).isEqualTo(11);
            });
            assertThat(stored(k).state()).isEqualTo(RecordState.IN_PROGRESS);
            assertThat(stored(k).fencingToken()).isEqualTo(11);
            assertThat(store.claim(k, FP, 11, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);
            assertThat(observer.claim(k, FP, 12, LEASE, TTL).status()).isEqualTo(Status.EXISTING);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void aCompletionWhoseReplyIsLostHasLandedAndARetryIsAcknowledged(Client client) throws Exception {
        try (RedisIdempotencyStore store = throughProxy(client)) {
            IdempotencyKey k = key("complete");
            store.claim(k, FP, 21, LEASE, TTL);
            replyLost(store, () -> store.complete(k, 21, new byte[] {4, 2}, TTL)).ifPresent(ok -> assertThat(ok).isTrue());
            assertThat(stored(k).state()).isEqualTo(RecordState.COMPLETED);
            assertThat(stored(k).outcome()).containsExactly(4, 2);
            assertThat(store.complete(k, 21, new byte[] {4, 2}, TTL)).isTrue();
            assertThat(observer.claim(k, FP, 22, LEASE, TTL).status()).isEqualTo(Status.EXISTING);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void aReleaseWhoseReplyIsLostHasLandedAndARetryIsAcknowledged(Client client) throws Exception {
        try (RedisIdempotencyStore store = throughProxy(client)) {
            IdempotencyKey k = key("release");
            store.claim(k, FP, 31, LEASE, TTL);
            replyLost(store, () -> store.release(k, 31)).ifPresent(ok -> assertThat(ok).isTrue());
            assertThat(stored(k).state()).isEqualTo(RecordState.RELEASED);
            assertThat(store.release(k, 31)).isTrue();
            assertThat(observer.claim(k, FP, 32, LEASE, TTL).claimed()).isTrue();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void anExtensionAndACheckpointWhoseRepliesAreLostHaveLanded(Client client) throws Exception {
        try (RedisIdempotencyStore store = throughProxy(client)) {
            IdempotencyKey k = key("extend");
            Instant first = store.claim(k, FP, 41, Duration.ofSeconds(5), TTL).record().leaseExpiresAt();
            replyLost(store, () -> store.extendLease(k, 41, Duration.ofMinutes(5)))
                    .ifPresent(deadline -> assertThat(deadline).isPresent());
            assertThat(stored(k).leaseExpiresAt()).isAfter(first.plusSeconds(60));
            replyLost(store, () -> store.checkpoint(k, 41, new byte[] {9})).ifPresent(ok -> assertThat(ok).isTrue());
            assertThat(stored(k).journal()).containsExactly(9);
            assertThat(store.checkpoint(k, 41, new byte[] {9})).isTrue();
            assertThat(store.extendLease(k, 41, Duration.ofMinutes(5))).isPresent();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void throughTheEngineTheWorkRunsOnceWhenTheCompletionsReplyIsLost(Client client) throws Exception {
        try (RedisIdempotencyStore store = throughProxy(client)) {
            IdempotencyEngine engine = IdempotencyEngine.builder().store(store).lease(LEASE).ttl(TTL).build();
            IdempotencyEngine other = IdempotencyEngine.builder().store(observer).lease(LEASE).ttl(TTL).build();
            IdempotencyKey k = key("engine");
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch[] dropped = new CountDownLatch[1];
            Result<String> first = engine.execute(k, Map.of("a", 1), String.class, ctx -> {
                // The next reply is the completion's.
                dropped[0] = proxy.dropNextReply();
                return "charged-" + runs.incrementAndGet();
            });
            ReplyDroppingProxy.awaitDropped(dropped[0]);
            assertThat(first.value()).isEqualTo("charged-1");
            Result<String> duplicate = other.execute(k, Map.of("a", 1), String.class,
                    ctx -> "charged-" + runs.incrementAndGet());
            assertThat(duplicate.replayed()).isTrue();
            assertThat(duplicate.value()).isEqualTo("charged-1");
            assertThat(runs).hasValue(1);
        }
    }
}
