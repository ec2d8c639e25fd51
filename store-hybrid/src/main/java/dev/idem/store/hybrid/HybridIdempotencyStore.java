package dev.idem.store.hybrid;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Sleeper;
import dev.idem.api.time.Ticker;
import dev.idem.store.hybrid.internal.Breaker;
import dev.idem.store.hybrid.internal.Events;
import dev.idem.store.hybrid.internal.Gate;
import dev.idem.store.hybrid.internal.GateClock;
import dev.idem.store.hybrid.internal.GateKeys;
import dev.idem.store.hybrid.internal.GatedOperations;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.redis.RedisKeyLayout;
import dev.idem.store.redis.RedisScriptClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jspecify.annotations.Nullable;

/**
 * One {@link IdempotencyStore} made of two: Redis as a fast gate and a {@link JdbcIdempotencyStore}
 * as the ground truth.
 *
 * <ul>
 *   <li>A duplicate of a completed request is replayed from the gate (one Redis round trip, no
 *       database statement) once the gate has learnt the completion from the database; a
 *       duplicate of work in progress is refused from the gate the same way.</li>
 *   <li>Every claim that could start the work is decided by the database: the gate only
 *       predicts it, so that duplicates arriving meanwhile are refused, and corrects itself
 *       when the database decides otherwise.</li>
 *   <li>Complete, release, checkpoint and extend are fenced by the database first; the gate
 *       is told afterwards. The transactional mode of the JDBC store works through
 *       {@link #inTransaction}, {@link #completeWithin} and {@link #checkpointInTransaction}.</li>
 *   <li>Redis down, slow, restarted empty, flushed, or holding stale or foreign records: the
 *       store uses the database alone for that call ({@link HybridStoreEvent.Type#GATE_FAILED}),
 *       skips the gate for the retry interval ({@link HybridStoreEvent.Type#GATE_DOWN}), and
 *       uses it again as soon as it answers ({@link HybridStoreEvent.Type#GATE_UP}). What the
 *       gate answers is never more than the database would answer, and a lease the gate shows
 *       falls due no later than the database's (to within the safety margin on clock rates).</li>
 * </ul>
 *
 * <p>Leases and expiry in the database are judged by the database's clock; the gate judges by
 * Redis {@code TIME}, and deadlines cross from one to the other only as durations measured
 * from a gate reading taken before the database acted, so the two servers' clocks may differ
 * by any amount. Records answered by the gate carry the gate's clock (instants and
 * {@link ClaimResult#storeTime()} alike), records answered by the database the database's.
 *
 * <p>The gate runs on any Redis client through a {@link RedisScriptClient}: Jedis
 * ({@code JedisScriptClient.of(jedis)}), Lettuce ({@code LettuceScriptClient.of(redisClient)}) or
 * Spring Data Redis ({@code SpringDataRedisScriptClient.of(connectionFactory)}). Closing the store
 * closes that script client, which releases only what it opened itself; the application's Redis
 * client and the JDBC store stay open. Thread-safe.
 */
public final class HybridIdempotencyStore implements IdempotencyStore {
    /** The default prefix of gate records: apart from {@code RedisIdempotencyStore}'s {@code idem:}. */
    public static final String DEFAULT_KEY_PREFIX = "idem:gate:";

    private final JdbcIdempotencyStore truth;
    private final GatedOperations ops;
    private final Gate gate;
    private final Breaker breaker;
    private final String keyPrefix;
    private final boolean serverClock;

    private HybridIdempotencyStore(Builder b) {
        this.truth = b.truth;
        this.keyPrefix = b.keyPrefix;
        Events events = new Events(b.listener);
        GateClock clock = new GateClock(b.clock, b.ticker);
        this.gate = new Gate(b.gate, new GateKeys(b.keyPrefix), clock, b.margin.toMillis(), b.pendingTimeout.toMillis(),
                b.clock == null ? 60_000 : 3_600_000, b.maxGateOutcomeBytes);
        this.breaker = new Breaker(b.ticker, b.retryInterval.toNanos(), events);
        this.ops = new GatedOperations(b.truth, gate, breaker, events, b.margin.toMillis(), b.ticker, b.sleeper);
        this.serverClock = b.clock == null;
    }

    /**
     * A builder for a store with {@code gate} in front of {@code truth}.
     *
     * @param gate the Redis client, standalone or cluster, as a script client (closed with the store; it
     *        never closes the application's own client)
     * @param truth the database store; never closed by this store
     * @return the builder
     */
    public static Builder builder(RedisScriptClient gate, JdbcIdempotencyStore truth) {
        return new Builder(gate, truth);
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        return ops.claim(key, fingerprint, fencingToken, lease, ttl);
    }

    /** Fenced by the database; then the gate stops showing the key in progress (it learns the outcome at the next claim). */
    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        boolean done = ops.fenced(key, fencingToken, () -> truth.complete(key, fencingToken, outcome, ttl), ok -> ok);
        if (done) {
            ops.finished(key, fencingToken, RecordState.COMPLETED, ttl.toMillis());
        }
        return done;
    }

    /** Fenced by the database; then the gate shows the key RELEASED. */
    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        boolean done = ops.fenced(key, fencingToken, () -> truth.release(key, fencingToken), ok -> ok);
        if (done) {
            // The database keeps the released record's expiry, which this call does not know.
            ops.finished(key, fencingToken, RecordState.RELEASED, GatedOperations.UNKNOWN_MS);
        }
        return done;
    }

    /**
     * The database alone keeps the journal; once it holds one, the gate stops answering the key's
     * duplicates (they read the journal from the database) and a refusal is passed on to the gate.
     */
    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
        // The gate stops answering before the journal exists too: from the database's commit until the
        // gate heard of it, a duplicate's claim answered by the gate would lack a journal a read had seen.
        ops.journaled(key, fencingToken);
        boolean done = ops.fenced(key, fencingToken, () -> truth.checkpoint(key, fencingToken, journal), ok -> ok);
        if (done) {
            ops.journaled(key, fencingToken);
        }
        return done;
    }

    /** Fenced by the database; then the gate's lease moves (never past the database's). */
    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        return ops.extendLease(key, fencingToken, lease);
    }

    /** The database's record, always (it has the journal and the latest state); the gate is told what it holds. */
    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        return ops.find(key);
    }

    /** The database's purge; Redis drops gate records by itself. */
    @Override
    public int purgeExpired(int limit) {
        return truth.purgeExpired(limit);
    }

    @Override
    public boolean isBackedBy(IdempotencyStore store) {
        return this == store || truth.isBackedBy(store);
    }

    /** The database store's, with the server clock only if the gate uses Redis {@code TIME} too. */
    @Override
    public StoreCapabilities capabilities() {
        StoreCapabilities c = truth.capabilities();
        return new StoreCapabilities(c.nativeExpiry(), c.serverClock() && serverClock, c.maxOutcomeBytes());
    }

    /**
     * Transactional mode: {@link JdbcIdempotencyStore#inTransaction}, then (after the commit)
     * the gate stops showing the key in progress. On {@link LeaseLostException} nothing was
     * committed and the gate is told the token is no longer current.
     *
     * @param <T> the work's result
     * @param <X> the checked exception the work may throw
     * @param key the key
     * @param fencingToken the caller's token
     * @param ttl how long the completed record lives
     * @param encoder turns the work's result into the stored outcome
     * @param work the business writes, on the transaction's handle
     * @return the work's result, committed with the completion
     * @throws X what the work threw (rolled back)
     */
    public <T, X extends Exception> T inTransaction(IdempotencyKey key, long fencingToken, Duration ttl,
            Function<? super T, byte[]> encoder, HandleCallback<T, X> work) throws X {
        T result;
        try {
            result = truth.inTransaction(key, fencingToken, ttl, encoder, work);
        } catch (LeaseLostException e) {
            refusedIfOurs(e, key, fencingToken);
            throw e;
        }
        ops.finished(key, fencingToken, RecordState.COMPLETED, ttl.toMillis());
        return result;
    }

    /**
     * {@link JdbcIdempotencyStore#completeWithin} on the caller's transaction; the gate is told
     * when that transaction commits through this handle ({@link Handle#afterCommit}). If the
     * commit happens elsewhere (a transaction manager on the connection), the engine's read
     * after atomic work tells the gate instead.
     *
     * @param handle the handle of the caller's transaction
     * @param key the key
     * @param fencingToken the caller's token
     * @param outcome the outcome
     * @param ttl how long the completed record lives
     * @return false if the token is not current; the caller must then roll back
     */
    public boolean completeWithin(Handle handle, IdempotencyKey key, long fencingToken, byte[] outcome,
            Duration ttl) {
        boolean done = truth.completeWithin(handle, key, fencingToken, outcome, ttl);
        if (done) {
            long ttlMs = ttl.toMillis();
            handle.afterCommit(() -> ops.finished(key, fencingToken, RecordState.COMPLETED, ttlMs));
        } else {
            ops.refused(key, fencingToken);
        }
        return done;
    }

    /**
     * {@link JdbcIdempotencyStore#checkpointInTransaction}: a step's writes and its journal entry
     * commit together in the database; the gate keeps no journal, and after the commit it stops
     * answering the key's duplicates (they read the journal from the database).
     *
     * @param <T> the step's result
     * @param <X> the checked exception the work may throw
     * @param key the key
     * @param fencingToken the caller's token
     * @param journal turns the step's result into the whole new journal
     * @param work the step's business writes, on the transaction's handle
     * @return the step's result, committed with its journal entry
     * @throws X what the work threw (rolled back)
     */
    public <T, X extends Exception> T checkpointInTransaction(IdempotencyKey key, long fencingToken,
            Function<? super T, byte[]> journal, HandleCallback<T, X> work) throws X {
        T result;
        ops.journaled(key, fencingToken); // before the commit as well: see checkpoint
        try {
            result = truth.checkpointInTransaction(key, fencingToken, journal, work);
        } catch (LeaseLostException e) {
            refusedIfOurs(e, key, fencingToken);
            throw e;
        }
        ops.journaled(key, fencingToken);
        return result;
    }

    /**
     * {@link JdbcIdempotencyStore#checkpointWithin} on the caller's transaction; after that transaction
     * commits through this handle, the gate stops answering the key's duplicates.
     *
     * @param handle the handle of the caller's transaction
     * @param key the key
     * @param fencingToken the caller's token
     * @param journal the whole new journal
     * @return false if the token is not current; the caller must then roll back
     */
    public boolean checkpointWithin(Handle handle, IdempotencyKey key, long fencingToken, byte[] journal) {
        ops.journaled(key, fencingToken); // before the commit as well: see checkpoint
        boolean done = truth.checkpointWithin(handle, key, fencingToken, journal);
        if (done) {
            handle.afterCommit(() -> ops.journaled(key, fencingToken));
        } else {
            ops.refused(key, fencingToken);
        }
        return done;
    }

    private void refusedIfOurs(LeaseLostException e, IdempotencyKey key, long fencingToken) {
        if (e.key().equals(key) && e.fencingToken() == fencingToken) {
            ops.refused(key, fencingToken);
        }
    }

    /**
     * The database store behind the gate.
     *
     * @return the JDBC store
     */
    public JdbcIdempotencyStore truth() {
        return truth;
    }

    /**
     * Whether the gate is in use: false from a failed gate call until a later one succeeds.
     *
     * @return whether the last gate call succeeded
     */
    public boolean gateAvailable() {
        return !breaker.isDown();
    }

    /** Closes the gate's script client; neither the application's Redis client nor the JDBC store. */
    @Override
    public void close() {
        gate.close();
    }

    @Override
    public String toString() {
        return "HybridIdempotencyStore[gate prefix=" + keyPrefix + ", truth=" + truth
                + (breaker.isDown() ? ", gate down" : "") + "]";
    }

    /** Validating builder: every setter rejects a bad value at once, naming it. */
    public static final class Builder {
        private final RedisScriptClient gate;
        private final JdbcIdempotencyStore truth;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration margin = Duration.ofMillis(100);
        private Duration retryInterval = Duration.ofSeconds(1);
        private Duration pendingTimeout = Duration.ofSeconds(30);
        private int maxGateOutcomeBytes = 64 * 1024;
        private HybridStoreListener listener = HybridStoreListener.NONE;
        private @Nullable Clock clock;
        private Ticker ticker = Ticker.system();
        private Sleeper sleeper = Sleeper.system();

        private Builder(RedisScriptClient gate, JdbcIdempotencyStore truth) {
            this.gate = Objects.requireNonNull(gate, "gate");
            this.truth = Objects.requireNonNull(truth, "truth");
        }

        /**
         * The text every gate record's Redis key starts with (default {@value #DEFAULT_KEY_PREFIX}):
         * at most 64 characters, no control characters, no '{' or '}'. Keep it apart from any
         * {@code RedisIdempotencyStore}'s prefix (a record of another format is ignored, never used).
         *
         * @param keyPrefix the prefix
         * @return this builder
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = RedisKeyLayout.checkPrefix(keyPrefix);
            return this;
        }

        /**
         * How long before a lease deadline or an expiry the gate stops answering from a record and
         * sends the claim to the database (default 100 ms, at most 1 minute). Covers the drift of
         * the Redis server's clock against the database's during one lease (NTP slewing) and small
         * clock steps; see the README for the bound it gives.
         *
         * @param margin zero or more
         * @return this builder
         */
        public Builder safetyMargin(Duration margin) {
            this.margin = check("safetyMargin", margin, Duration.ZERO, Duration.ofMinutes(1));
            return this;
        }

        /**
         * How long the gate is skipped after a failed gate call before it is tried again (default 1 s).
         *
         * @param interval from 1 ms to 10 minutes
         * @return this builder
         */
        public Builder retryInterval(Duration interval) {
            this.retryInterval = check("retryInterval", interval, Duration.ofMillis(1), Duration.ofMinutes(10));
            return this;
        }

        /**
         * How long a claim sent to the database without a prediction keeps the gate from
         * predicting other claims of its key, if its caller never reports back (crashed). Longer
         * than the database's query timeout (default 30 s).
         *
         * @param timeout from 1 s to 10 minutes
         * @return this builder
         */
        public Builder pendingTimeout(Duration timeout) {
            this.pendingTimeout = check("pendingTimeout", timeout, Duration.ofSeconds(1), Duration.ofMinutes(10));
            return this;
        }

        /**
         * The largest outcome the gate keeps (default 64 KiB). A larger one stays in the database
         * alone: its replays read it from there (the gate still knows the key is completed).
         *
         * @param bytes 0 (keep none) to 16 MiB
         * @return this builder
         */
        public Builder maxGateOutcomeBytes(int bytes) {
            if (bytes < 0 || bytes > 16 * 1024 * 1024) {
                throw new IllegalArgumentException("maxGateOutcomeBytes must be between 0 and 16 MiB but was " + bytes);
            }
            this.maxGateOutcomeBytes = bytes;
            return this;
        }

        /**
         * Receives the store's events (gate answers, corrections, failures, down and up), for
         * metrics. Default: none.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(HybridStoreListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * For tests and single-clock deployments: the gate judges leases and expiry by
         * {@code clock} instead of Redis {@code TIME}. Give the JDBC store the same clock, and
         * every instant the gate answers equals the database's to the millisecond.
         * {@link StoreCapabilities#serverClock()} becomes false. Not set by default.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The monotonic source for the retry interval and for carrying deadlines onto the gate's
         * clock. Default: {@link Ticker#system()}.
         *
         * @param ticker the ticker
         * @return this builder
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * How the store pauses in the one case where it waits: a caller holding another caller's
         * token, whose predicted claim has not reached the database yet. Default: {@link Sleeper#system()}.
         *
         * @param sleeper the sleeper
         * @return this builder
         */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        /**
         * Builds the store; this makes no call to Redis or the database.
         *
         * @return the store
         */
        public HybridIdempotencyStore build() {
            return new HybridIdempotencyStore(this);
        }

        private static Duration check(String name, Duration d, Duration min, Duration max) {
            Objects.requireNonNull(d, name);
            if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
                throw new IllegalArgumentException(name + " must be between " + min + " and " + max + " but was " + d);
            }
            return d;
        }
    }
}
