package dev.idem.store.redis;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoreLimits;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.redis.internal.Await;
import dev.idem.store.redis.internal.LuaScript;
import dev.idem.store.redis.internal.ReplicatedRunner;
import dev.idem.store.redis.internal.Replies;
import dev.idem.store.redis.internal.Replies.MalformedReplyException;
import dev.idem.store.redis.internal.ReplicatedRunner;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * An {@link IdempotencyStore} on Redis, standalone or Redis Cluster, through whichever client the
 * application has: {@code RedisIdempotencyStore.builder(JedisScriptClient.of(jedis))} for Jedis,
 * {@code builder(LettuceScriptClient.of(redisClient))} for Lettuce,
 * {@code builder(SpringDataRedisScriptClient.of(connectionFactory))} for Spring Data Redis (see
 * {@link RedisScriptClient}). The scripts, the key layout and the reading of replies are this
 * class's and the same over every client, so stores on different clients share one deployment.
 *
 * <p>Each record is one hash whose key carries a hash tag, so it lives on one cluster
 * slot. Every operation is one Lua script run with {@code EVALSHA} (one round trip; the
 * script is sent with {@code EVAL} only when a node answers NOSCRIPT), so it is atomic
 * against every other operation on that record. Leases and expiry are judged by the Redis
 * server's clock ({@code TIME} inside the script; a test clock with {@link Builder#clock}),
 * and the script that writes a record also sets its Redis expiry, so Redis removes expired
 * records by itself ({@link #purgeExpired} returns 0). The record's creation time and step
 * journal ({@link #checkpoint}) are fields of the same hash. Every script may run twice with the
 * same arguments (a client that re-sends a command after a dropped connection) and answers the
 * second run as it answered the first.
 *
 * <p>Client failures (refused connections, timeouts, server errors, a closed client, replies
 * the store cannot read) throw {@link StoreUnavailableException}. Set a short command timeout on
 * the client: it bounds every operation. {@link #close()} closes the script client, which
 * releases only what it opened itself, never the application's client. Instances are immutable
 * and thread-safe.
 */
public final class RedisIdempotencyStore implements IdempotencyStore {
    /** The key prefix used unless {@link Builder#keyPrefix} sets another. */
    public static final String DEFAULT_KEY_PREFIX = "idem:";
    /** The largest outcome accepted unless {@link Builder#maxOutcomeBytes} sets another: 16 MiB. */
    public static final int DEFAULT_MAX_OUTCOME_BYTES = 16 * 1024 * 1024;
    /** The largest outcome that can be configured: Redis' default {@code proto-max-bulk-len}, 512 MiB. */
    public static final int MAX_OUTCOME_BYTES_LIMIT = 512 * 1024 * 1024;
    /** The longest lease or TTL accepted (about 100 years), so millisecond arithmetic stays exact. */
    public static final Duration MAX_DURATION = Duration.ofDays(36_500);

    private final RedisScriptClient scripts;
    private final String keyPrefix;
    private final RedisKeyLayout keys;
    private final ReplicatedRunner replicated;
    private final int maxOutcomeBytes;
    private final int waitReplicas;
    private final Duration waitTimeout;
    private final @Nullable Clock clock;
    /** claim.lua's and complete.lua's last argument: whether a WAIT follows the script (it then covers records it only read). */
    private final byte[] waitFlag;

    private RedisIdempotencyStore(Builder b) {
        this.scripts = b.scripts;
        this.keyPrefix = b.keyPrefix;
        this.keys = RedisKeyLayout.withPrefix(b.keyPrefix);
        this.replicated = new ReplicatedRunner(b.scripts, b.waitReplicas, b.waitTimeout.toMillis());
        this.maxOutcomeBytes = b.maxOutcomeBytes;
        this.waitReplicas = b.waitReplicas;
        this.waitTimeout = b.waitTimeout;
        this.clock = b.clock;
        this.waitFlag = b.waitReplicas > 0 ? WAITS : NO_WAIT;
    }

    /**
     * A builder for a store on {@code scripts}, which the store closes when it is closed.
     *
     * @param scripts the client adapter, such as {@code JedisScriptClient.of(jedis)}
     * @return the builder
     */
    public static Builder builder(RedisScriptClient scripts) {
        return new Builder(scripts);
    }

    /**
     * A store on {@code scripts} with the default prefix and limits.
     *
     * @param scripts the client adapter, closed with the store
     * @return the store
     */
    public static RedisIdempotencyStore create(RedisScriptClient scripts) {
        return builder(scripts).build();
    }

    // Each operation is written once, as a stage; the blocking methods wait for it (a stage of a
    // blocking client has completed when it is returned). A non-blocking store contract can
    // return these stages as they are.

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        return Await.result(claimAsync(key, fingerprint, fencingToken, lease, ttl));
    }

    CompletionStage<ClaimResult> claimAsync(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        long leaseMillis = millis("lease", lease);
        long ttlMillis = millis("ttl", ttl);
        byte[] recordKey = keys.redisKey(key);
        return replicated.run(LuaScript.CLAIM, recordKey,
                List.of(fingerprint, text(fencingToken), text(leaseMillis), text(ttlMillis), now(), waitFlag))
                .thenCompose(reply -> {
                    ClaimResult result = claimResult(key, reply.value(), fingerprint, fencingToken);
                    if (!replicated.tooFew(reply)) {
                        return CompletableFuture.completedStage(result);
                    }
                    if (!result.claimed()) {
                        if (!settles(result.record(), fingerprint)) {
                            return CompletableFuture.completedStage(result);
                        }
                        // A replay or a 422 the caller would keep for good, read from a record only the primary
                        // may hold (claim.lua made the WAIT cover it): a failover could still lose it and let a
                        // takeover store another outcome. Not answered until the replicas have it.
                        throw replicated.failure("the " + result.record().state() + " record this claim found,",
                                reply, "; it is not answered from until the replicas have it (retry)");
                    }
                    // Only the primary holds the claim: a failover now could lose it and let a duplicate run
                    // the work as well. Give the key back, so the caller's retry can claim it again; if that
                    // fails too, the claim holds the key until its lease lapses, as a crashed holder's would.
                    return scripts.run(LuaScript.RELEASE, recordKey, List.of(text(fencingToken), now()))
                            .handle((ignored, e) -> {
                                throw replicated.failure("claim", reply,
                                        "; the claim was released again and the work did not start");
                            });
                });
    }

    /** Whether an EXISTING answer is final for the caller: a replay, or another request's record (422). */
    private static boolean settles(StoredRecord record, byte[] fingerprint) {
        return record.state() == RecordState.COMPLETED || !record.hasFingerprint(fingerprint);
    }

    private static ClaimResult claimResult(IdempotencyKey key, @Nullable Object reply, byte[] fingerprint,
            long token) {
        try {
            return Replies.claim(key, reply, fingerprint, token);
        } catch (MalformedReplyException | IllegalArgumentException e) {
            throw unreadable(LuaScript.CLAIM, e);
        }
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        return Await.result(completeAsync(key, fencingToken, outcome, ttl));
    }

    CompletionStage<Boolean> completeAsync(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        Objects.requireNonNull(key, "key");
        StoreLimits.checkSize("outcome", outcome, maxOutcomeBytes);
        long ttlMillis = millis("ttl", ttl);
        return fencedWrite(LuaScript.COMPLETE, "outcome", keys.redisKey(key),
                List.of(text(fencingToken), outcome, text(ttlMillis), now(), waitFlag));
    }

    /** One script, fenced by the token; with {@link Builder#waitForReplicas} the replicas' acknowledgement too. */
    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
        return Await.result(checkpointAsync(key, fencingToken, journal));
    }

    CompletionStage<Boolean> checkpointAsync(IdempotencyKey key, long fencingToken, byte[] journal) {
        Objects.requireNonNull(key, "key");
        StoreLimits.checkSize("journal", journal, maxOutcomeBytes);
        return fencedWrite(LuaScript.CHECKPOINT, "step journal", keys.redisKey(key),
                List.of(text(fencingToken), journal, now()));
    }

    private CompletionStage<Boolean> fencedWrite(RedisScript script, String what, byte[] recordKey,
            List<byte[]> args) {
        return replicated.run(script, recordKey, args).thenApply(reply -> {
            boolean done = flag(script, reply.value());
            if (done && replicated.tooFew(reply)) {
                // The write is on the primary (a retry with this token returns true and a duplicate
                // sees it), but a failover now could lose it.
                throw replicated.failure(what, reply, "");
            }
            return done;
        });
    }

    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        return Await.result(releaseAsync(key, fencingToken));
    }

    CompletionStage<Boolean> releaseAsync(IdempotencyKey key, long fencingToken) {
        Objects.requireNonNull(key, "key");
        return scripts.run(LuaScript.RELEASE, keys.redisKey(key), List.of(text(fencingToken), now()))
                .thenApply(reply -> flag(LuaScript.RELEASE, reply));
    }

    private static boolean flag(RedisScript script, @Nullable Object reply) {
        try {
            return Replies.flag(reply, script.name() + " reply");
        } catch (MalformedReplyException e) {
            throw unreadable(script, e);
        }
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        return Await.result(extendLeaseAsync(key, fencingToken, lease));
    }

    CompletionStage<Optional<Instant>> extendLeaseAsync(IdempotencyKey key, long fencingToken, Duration lease) {
        Objects.requireNonNull(key, "key");
        long leaseMillis = millis("lease", lease);
        return replicated.run(LuaScript.EXTEND, keys.redisKey(key), List.of(text(fencingToken), text(leaseMillis), now()))
                .thenApply(reply -> {
                    Optional<Instant> deadline = deadline(reply.value());
                    if (deadline.isPresent() && replicated.tooFew(reply)) {
                        // A failover now could bring back the shorter lease, and a duplicate could take the key
                        // over while this worker still runs: the worker must not count on the extension.
                        throw replicated.failure("lease extension", reply, "");
                    }
                    return deadline;
                });
    }

    private static Optional<Instant> deadline(@Nullable Object reply) {
        try {
            List<?> list = Replies.list(reply, 1, 2, "extendLease reply");
            boolean extended = Replies.flag(list.get(0), "extendLease status");
            if (extended != (list.size() == 2)) {
                throw new MalformedReplyException("extendLease reply: status and length disagree");
            }
            return extended
                    ? Optional.of(Instant.ofEpochMilli(Replies.integer(list.get(1), "lease deadline")))
                    : Optional.empty();
        } catch (MalformedReplyException e) {
            throw unreadable(LuaScript.EXTEND, e);
        }
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        return Await.result(findAsync(key));
    }

    CompletionStage<Optional<StoredRecord>> findAsync(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        return scripts.run(LuaScript.FIND, keys.redisKey(key), List.of(now())).thenApply(reply -> record(key, reply));
    }

    private static Optional<StoredRecord> record(IdempotencyKey key, @Nullable Object reply) {
        try {
            List<?> list = Replies.list(reply, 1, 10, "find reply");
            Replies.integer(list.get(0), "server time");
            if (list.size() == 1) {
                return Optional.empty();
            }
            if (list.size() != 10) {
                throw new MalformedReplyException("find reply: a record needs 10 elements, got " + list.size());
            }
            return Optional.of(Replies.record(key, list, 1));
        } catch (MalformedReplyException | IllegalArgumentException e) {
            throw unreadable(LuaScript.FIND, e);
        }
    }

    /** Always 0: every record carries a Redis expiry, and Redis removes it by itself. */
    @Override
    public int purgeExpired(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive but was " + limit);
        }
        return 0;
    }

    /** Native expiry; the server clock unless a test clock is set; the configured outcome limit. */
    @Override
    public StoreCapabilities capabilities() {
        return new StoreCapabilities(true, clock == null, maxOutcomeBytes);
    }

    /** Closes the script client: it releases what it opened itself, never a client the application passed to it. */
    @Override
    public void close() {
        scripts.close();
    }

    @Override
    public String toString() {
        return "RedisIdempotencyStore[prefix=" + keyPrefix + ", maxOutcomeBytes=" + maxOutcomeBytes
                + (waitReplicas > 0 ? ", wait=" + waitReplicas + "/" + waitTimeout.toMillis() + "ms" : "")
                + ", client=" + scripts + "]";
    }

    private static long millis(String name, Duration d) {
        return StoreLimits.durationMillis(name, d, MAX_DURATION);
    }

    // The test clock's reading, or empty: the scripts then read the server's TIME.
    private static final byte[] SERVER_CLOCK = new byte[0];
    private static final byte[] WAITS = {'1'};
    private static final byte[] NO_WAIT = new byte[0];

    private byte[] now() {
        return clock == null ? SERVER_CLOCK : text(clock.millis());
    }

    // Decimal ASCII without a String in between (several per call).
    private static byte[] text(long n) {
        if (n == Long.MIN_VALUE) {
            return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
        }
        long v = Math.abs(n);
        int digits = 1;
        for (long x = v; x >= 10; x /= 10) {
            digits++;
        }
        int length = digits + (n < 0 ? 1 : 0);
        byte[] out = new byte[length];
        for (int i = length - 1; i >= length - digits; i--) {
            out[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        if (n < 0) {
            out[0] = '-';
        }
        return out;
    }

    private static StoreUnavailableException unreadable(RedisScript script, RuntimeException e) {
        return new StoreUnavailableException("unreadable reply from Redis " + script.name() + ": " + e.getMessage(),
                e, false);
    }

    /**
     * Validating builder: every setter rejects a bad value at once, naming it. Only the
     * script client is required.
     */
    public static final class Builder {
        private final RedisScriptClient scripts;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private int maxOutcomeBytes = DEFAULT_MAX_OUTCOME_BYTES;
        private int waitReplicas;
        private Duration waitTimeout = Duration.ZERO;
        private @Nullable Clock clock;

        private Builder(RedisScriptClient scripts) {
            this.scripts = Objects.requireNonNull(scripts, "scripts");
        }

        /**
         * The text every record key starts with (default {@value #DEFAULT_KEY_PREFIX}): at
         * most 64 characters, no control characters, and no '{' or '}' (the store's own hash
         * tag must be the first one in the key, or records would pile onto one cluster slot).
         *
         * @param keyPrefix the prefix
         * @return this builder
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = RedisKeyLayout.checkPrefix(keyPrefix);
            return this;
        }

        /**
         * The largest outcome {@link #complete} (and step journal {@link #checkpoint}) accepts,
         * 1 byte to 512 MiB (default 16 MiB).
         *
         * @param maxOutcomeBytes the limit in bytes
         * @return this builder
         */
        public Builder maxOutcomeBytes(int maxOutcomeBytes) {
            if (maxOutcomeBytes < 1 || maxOutcomeBytes > MAX_OUTCOME_BYTES_LIMIT) {
                throw new IllegalArgumentException("maxOutcomeBytes must be between 1 and " + MAX_OUTCOME_BYTES_LIMIT
                        + " but was " + maxOutcomeBytes);
            }
            this.maxOutcomeBytes = maxOutcomeBytes;
            return this;
        }

        /**
         * After each claim, complete, checkpoint and lease extension, waits (Redis {@code WAIT},
         * pipelined in the same round trip) until {@code replicas} replicas acknowledged the write
         * or {@code timeout} passed. Fewer acknowledgements make the call throw a retryable
         * {@link StoreUnavailableException}: a claim that won is released again first (best
         * effort), so the work does not start on a claim a failover could lose; an outcome,
         * journal or extension stays on the primary, and the caller must not count on it
         * surviving a failover. A claim answered from a record it did not write waits for that
         * record instead: a replay or a 422 (a completed record, another request's record) fails the
         * same way until the replicas have the record, so no caller settles on a write a failover
         * could lose; a 409 (the same request in progress) never fails for it. Off by default;
         * {@code replicas = 0} turns it off. The client's command (socket) timeout must exceed
         * {@code timeout}. {@code WAIT} is not
         * consensus: see the README for the window that remains.
         *
         * @param replicas how many replicas must acknowledge; 0 turns waiting off
         * @param timeout how long to wait for them, at most 10 minutes
         * @return this builder
         */
        public Builder waitForReplicas(int replicas, Duration timeout) {
            if (replicas < 0) {
                throw new IllegalArgumentException("replicas must not be negative but was " + replicas);
            }
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || (replicas > 0 && timeout.isZero())) {
                throw new IllegalArgumentException(
                        "timeout must be positive (WAIT 0 would block forever) but was " + timeout);
            }
            if (timeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("timeout must be at most 10 minutes but was " + timeout);
            }
            this.waitReplicas = replicas;
            this.waitTimeout = timeout;
            return this;
        }

        /**
         * For tests and single-clock deployments: judge leases and expiry by {@code clock}
         * instead of the Redis server's {@code TIME}. The same scripts run, with this clock's
         * reading in place of the server's, so a test can move time with a mutable clock
         * instead of sleeping; Redis' own expiry of a record is then set relative to it (the
         * record's lifetime from the write, in real time). Every store sharing the keys must use
         * the same clock; {@link StoreCapabilities#serverClock()} becomes false. Not set by default.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Builds the store; this makes no call to Redis.
         *
         * @return the store
         */
        public RedisIdempotencyStore build() {
            return new RedisIdempotencyStore(this);
        }
    }
}
