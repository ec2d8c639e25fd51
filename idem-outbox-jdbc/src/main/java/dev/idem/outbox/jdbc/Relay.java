package dev.idem.outbox.jdbc;

import dev.idem.api.time.Sleeper;
import dev.idem.api.time.Ticker;
import dev.idem.client.RetryPolicy;
import dev.idem.outbox.jdbc.internal.OutboxSql;
import java.lang.System.Logger.Level;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * Publishes committed outbox rows through a {@link Publisher} and marks them sent.
 *
 * <h2>One batch ({@link #runOnce()})</h2>
 * In one READ COMMITTED transaction: select up to {@code batchSize} due pending rows in id
 * order with {@code FOR UPDATE SKIP LOCKED}, publish each, and mark it sent, or on failure
 * schedule its next attempt after a full-jitter backoff drawn by idem-client's
 * {@link RetryPolicy} ({@code random(0, min(maxDelay, baseDelay * 2^(attempt-1)))}), or after
 * {@code maxAttempts} failures mark it dead (state {@code F}); then commit. Only then do the
 * batch's counts go to the {@link RelayListener}, and dead rows to the dead-letter callback, each
 * in a transaction of its own that marks it reported (state {@code D}). Several relays (threads
 * or processes) therefore claim disjoint batches: a row locked by one relay is skipped by the
 * others, never waited for and never published by two relays at once. SKIP LOCKED is used on PostgreSQL, MySQL 8 / MariaDB 10.6+ and H2 2.x alike; H2
 * skips more than the locked rows under {@code ORDER BY ... LIMIT} (a second relay may find
 * nothing while the first holds a batch), which costs parallelism but never correctness.
 *
 * <h2>A commit whose answer is lost</h2>
 * If the commit throws (the connection broke, the database answered with an error), it may or
 * may not have landed. The relay then re-reads the rows the batch wrote ({@code FOR UPDATE SKIP
 * LOCKED}, so a row still held by the lost transaction is not taken as an answer): rows that hold
 * exactly what the batch wrote settle it as committed, and {@link #runOnce()} returns as if the
 * commit had answered; rows that hold what they held before settle it as rolled back; otherwise
 * the outcome stays unknown. The listener gets the settled outcome ({@link RelayBatch#outcome()}),
 * so counts follow what the table says.
 *
 * <h2>Crashes</h2>
 * If the relay dies (or the {@code Publisher} throws an {@link Error}) after publishing and
 * before the commit, the transaction rolls back and the rows are published again by the next
 * batch, with the same event id: the consumer's inbox absorbs the repeat. The row locks are
 * held while the publisher runs, so bound the publisher's time and keep batches small
 * (default 100). A row marked dead in a batch that rolls back is pending again, gets its
 * attempts again, and is never reported dead unless a later batch's dead mark commits. An
 * interrupt of the relay's thread (shutdown) before or during a publish is the same as a death:
 * the batch rolls back, whatever the publisher made of the interrupt (threw
 * {@link InterruptedException}, wrapped it, or only left the thread's flag set), and no row counts
 * it as a failed attempt.
 *
 * <h2>Ordering</h2>
 * Without {@code orderedByKey} rows are published in id order within a batch, but retries and
 * concurrent relays reorder them. With {@code orderedByKey(true)} a row is only claimed when no
 * older pending row has its aggregate key, so each key's messages are published one at a time
 * in id order, and a failing message holds back the later ones of its key until it is sent or
 * dead. The cost: at most one message per key per batch, a head-of-line block per key while its
 * head backs off, and an index probe per candidate row. Id order is insertion order: writers of
 * one aggregate must serialize their transactions (they usually do, on the aggregate's row), or
 * a later id may commit, and be published, first. Rows without a key are never held back.
 *
 * <h2>Retention</h2>
 * {@link #purgeSent(int)} deletes sent rows older than the retention in bounded batches; dead
 * rows stay for inspection until deleted by hand.
 *
 * <p>Thread-safe; {@link #run(BooleanSupplier)} is the usual polling loop.
 */
public final class Relay {
    private static final System.Logger LOG = System.getLogger(Relay.class.getName());
    private static final int MAX_ERROR = 1000;

    private final Outbox outbox;
    private final Publisher publisher;
    private final int batchSize;
    private final int maxAttempts;
    private final RetryPolicy backoff;
    private final Clock clock;
    private final Sleeper sleeper;
    private final Duration pollInterval;
    private final Duration retention;
    private final boolean orderedByKey;
    private final Consumer<OutboxRecord> onDeadLetter;
    private final RelayListener listener;
    private final Ticker ticker;

    private Relay(Builder b) {
        this.outbox = b.outbox;
        this.publisher = b.publisher;
        this.batchSize = b.batchSize;
        this.maxAttempts = b.maxAttempts;
        this.backoff = b.backoff;
        this.clock = b.clock != null ? b.clock : b.outbox.clock();
        this.sleeper = b.sleeper;
        this.pollInterval = b.pollInterval;
        this.retention = b.retention;
        this.orderedByKey = b.orderedByKey;
        this.onDeadLetter = b.onDeadLetter;
        this.listener = b.listener;
        this.ticker = b.ticker;
    }

    /**
     * Publishes one batch of due rows, then hands the rows whose dead mark committed to the
     * dead-letter callback. The listener hears of the batch after its transaction ended. If the
     * commit fails, the rows the batch wrote are re-read to settle whether it landed (see
     * {@link RelayBatch}): a commit that landed returns normally, as if it had answered.
     *
     * @return how many rows the batch held (published, rescheduled or dead-lettered); 0 when
     *     nothing was due
     * @throws org.jdbi.v3.core.JdbiException if the database fails and the batch rolled back or
     *     its outcome stayed unknown (nothing more is marked; rolled-back rows are published again later)
     * @throws CancellationException if the thread was interrupted before or during a publish
     *     (shutdown): the batch rolled back, no row counts an attempt, and the thread's interrupt
     *     flag is set
     */
    public int runOnce() {
        OutboxSql sql = outbox.sql();
        long start = ticker.read();
        Tally tally = new Tally();
        try {
            outbox.jdbi().useTransaction(TransactionIsolationLevel.READ_COMMITTED, h -> {
                List<OutboxRecord> batch = h.createQuery(orderedByKey ? sql.claimOrdered : sql.claim)
                        .bind("now", clock.millis()).bind("limit", batchSize).map((rs, ctx) -> record(rs, 1)).list();
                tally.claimed = batch.size();
                for (OutboxRecord record : batch) {
                    publishOne(h, sql, record, tally);
                }
                tally.written = true;
            });
        } catch (RuntimeException e) {
            if (!tally.written || settle(sql, tally) != RelayBatch.Outcome.COMMITTED) {
                report(tally, tally.written ? tally.outcome : RelayBatch.Outcome.ROLLED_BACK, start, e);
                throw e;
            }
            LOG.log(Level.WARNING, "outbox relay: the commit of a batch of {0} rows failed, but re-reading them"
                    + " showed it landed: {1}", tally.claimed, String.valueOf(e));
            report(tally, RelayBatch.Outcome.COMMITTED, start, e);
            reportDeadLetters(sql);
            return tally.claimed;
        } catch (Error e) {
            // The process is going down (or the publisher threw an Error and the batch rolled back):
            // no settling; a dead mark that did commit is reported by a later batch.
            report(tally, tally.written ? RelayBatch.Outcome.UNKNOWN : RelayBatch.Outcome.ROLLED_BACK, start, e);
            throw e;
        }
        if (tally.claimed > 0) {
            report(tally, RelayBatch.Outcome.COMMITTED, start, null);
        }
        reportDeadLetters(sql);
        return tally.claimed;
    }

    /**
     * Settles a batch whose commit failed after its writes, by re-reading its rows with {@code FOR
     * UPDATE SKIP LOCKED}: a row still locked is skipped (its transaction may yet commit), a row
     * holding exactly what the batch wrote (state, attempts, and the sent or due time) shows the
     * transaction landed, any other row shows it did not (a transaction lands whole or not at all).
     * Records the outcome in the tally, {@link RelayBatch.Outcome#UNKNOWN} if no row decides it or
     * the rows cannot be read.
     */
    private RelayBatch.Outcome settle(OutboxSql sql, Tally tally) {
        tally.outcome = RelayBatch.Outcome.UNKNOWN;
        if (tally.writes.isEmpty()) {
            tally.outcome = RelayBatch.Outcome.ROLLED_BACK; // it wrote nothing: nothing took effect
            return tally.outcome;
        }
        Map<Long, Write> byId = new HashMap<>();
        for (Write w : tally.writes) {
            byId.put(w.id, w);
        }
        try {
            List<Boolean> ours = outbox.jdbi().inTransaction(TransactionIsolationLevel.READ_COMMITTED, h ->
                    h.createQuery(sql.settle).bindList("ids", new ArrayList<>(byId.keySet()))
                            .map((rs, ctx) -> byId.get(rs.getLong("id")).matches(rs)).list());
            boolean landed = ours.contains(Boolean.TRUE);
            boolean notLanded = ours.contains(Boolean.FALSE);
            if (landed != notLanded) {
                tally.outcome = landed ? RelayBatch.Outcome.COMMITTED : RelayBatch.Outcome.ROLLED_BACK;
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "outbox relay: the rows of a batch whose commit failed could not be re-read;"
                    + " its outcome is unknown", e);
        }
        return tally.outcome;
    }

    /**
     * Hands dead rows whose mark committed (state F) to the callback, each in its own transaction
     * that then marks it reported (state D): after a crash between the two, the next batch of any
     * relay hands that one row over again, so a dead letter is never lost and only the one in
     * flight is repeated. A row whose callback threw is left for the next batch.
     */
    private void reportDeadLetters(OutboxSql sql) {
        long after = Long.MIN_VALUE;
        for (int n = 0; n < batchSize; n++) {
            long from = after;
            Long handed = outbox.jdbi().inTransaction(TransactionIsolationLevel.READ_COMMITTED, h -> {
                OutboxRecord record = h.createQuery(sql.claimDead).bind("after", from).bind("limit", 1)
                        .map((rs, ctx) -> record(rs, 0)).findOne().orElse(null);
                if (record == null) {
                    return null;
                }
                try {
                    onDeadLetter.accept(record);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "outbox dead-letter callback threw for " + record.eventId()
                            + "; it is called again after the next batch", e);
                    return record.id();
                }
                h.createUpdate(sql.markReported).bind("id", record.id()).execute();
                return record.id();
            });
            if (handed == null) {
                return;
            }
            after = handed;
        }
    }

    private static OutboxRecord record(ResultSet rs, int nextAttempt) throws SQLException {
        return new OutboxRecord(rs.getLong("id"), rs.getString("event_id"), rs.getString("topic"),
                rs.getString("aggregate_key"), rs.getBytes("payload"), rs.getInt("attempts") + nextAttempt,
                Instant.ofEpochMilli(rs.getLong("created_at")));
    }

    private void report(Tally tally, RelayBatch.Outcome outcome, long start, Throwable failure) {
        try {
            listener.onBatch(new RelayBatch(outcome, tally.claimed, tally.sent, tally.retried.size(),
                    tally.dead, tally.retried, Duration.ofNanos(ticker.read() - start), failure));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "outbox relay listener threw", e);
        }
    }

    /** What one batch wrote, reported once its transaction ended. */
    private static final class Tally {
        int claimed;
        int sent;
        final List<Duration> retried = new ArrayList<>();
        int dead;
        /** Each row's new state as the batch wrote it, to settle a commit whose answer was lost. */
        final List<Write> writes = new ArrayList<>();
        /** Every row was written; a failure after this is the commit's. */
        boolean written;
        RelayBatch.Outcome outcome = RelayBatch.Outcome.UNKNOWN;
    }

    /** One row as a batch wrote it: its state, attempts and, for a sent or rescheduled row, the time. */
    private record Write(long id, String state, int attempts, long at) {
        boolean matches(ResultSet rs) throws SQLException {
            String now = rs.getString("state").trim();
            boolean sameState = state.equals("F") ? now.equals("F") || now.equals("D") : now.equals(state);
            if (!sameState || rs.getInt("attempts") != attempts) {
                return false;
            }
            return switch (state) {
                case "S" -> rs.getLong("sent_at") == at;
                case "P" -> rs.getLong("available_at") == at;
                default -> true;
            };
        }
    }

    private void publishOne(Handle h, OutboxSql sql, OutboxRecord record, Tally tally) {
        if (Thread.currentThread().isInterrupted()) {
            throw interrupted(null);
        }
        Exception failure;
        try {
            publisher.publish(record);
            long now = clock.millis();
            h.createUpdate(sql.markSent).bind("now", now).bind("id", record.id()).execute();
            tally.writes.add(new Write(record.id(), "S", record.attempt(), now));
            tally.sent++;
            return;
        } catch (Exception e) {
            if (isInterrupt(e)) {
                // Shutdown, not a failed attempt: nothing of this batch is recorded, so no healthy
                // row is rescheduled or dead-lettered for it.
                throw interrupted(e);
            }
            failure = e;
        }
        String error = truncate(String.valueOf(failure));
        if (record.attempt() >= maxAttempts) {
            h.createUpdate(sql.markDead).bind("error", error).bind("id", record.id()).execute();
            tally.writes.add(new Write(record.id(), "F", record.attempt(), 0));
            LOG.log(Level.ERROR, "outbox message {0} ({1}) is dead after {2} attempts: {3}", record.eventId(),
                    record.topic(), record.attempt(), error);
            tally.dead++;
            return;
        }
        long delay = backoff.backoff(record.attempt() - 1, null).toMillis();
        long due = clock.millis() + delay;
        h.createUpdate(sql.markRetry).bind("availableAt", due).bind("error", error).bind("id", record.id()).execute();
        tally.writes.add(new Write(record.id(), "P", record.attempt(), due));
        tally.retried.add(Duration.ofMillis(delay));
        LOG.log(Level.DEBUG, "outbox message {0} failed attempt {1}; next in {2} ms: {3}", record.eventId(),
                record.attempt(), delay, error);
    }

    /**
     * Whether a publish failed because its thread was interrupted: the publisher threw
     * {@link InterruptedException} (or one is among the causes, as a client's unchecked wrapper
     * holds it), or the thread's interrupt flag is still set.
     */
    private static boolean isInterrupt(Exception e) {
        if (Thread.currentThread().isInterrupted()) {
            return true;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** Ends the batch (its transaction rolls back) with the thread's interrupt flag set. */
    private static CancellationException interrupted(Exception cause) {
        Thread.currentThread().interrupt();
        CancellationException e = new CancellationException("the outbox relay's thread was interrupted during a"
                + " batch; the batch rolled back and its rows stay pending");
        e.initCause(cause);
        return e;
    }

    private static String truncate(String s) {
        return s.length() <= MAX_ERROR ? s : s.substring(0, MAX_ERROR);
    }

    /**
     * Deletes up to {@code limit} sent rows older than the retention.
     *
     * @param limit the most rows to delete in this call, 1..100000
     * @return how many rows were deleted
     */
    public int purgeSent(int limit) {
        if (limit < 1 || limit > 100_000) {
            throw new IllegalArgumentException("limit must be within 1..100000 but was " + limit);
        }
        long cutoff = clock.millis() - retention.toMillis();
        return outbox.jdbi().withHandle(h -> h.createUpdate(outbox.sql().purge).bind("cutoff", cutoff)
                .bind("limit", limit).execute());
    }

    /**
     * Runs batches while {@code keepGoing} says so: a full batch is followed at once by the
     * next, a short one by a pause of the poll interval (through the injected sleeper), and
     * after each short batch sent rows past the retention are purged. A database or publisher
     * failure of one batch is logged and followed by a pause; errors propagate. An interrupt
     * (shutdown) ends the run: during a publish, the batch is rolled back first (its rows stay
     * pending, no attempt counted), whatever the publisher did with the interrupt.
     *
     * @param keepGoing checked before every batch
     * @throws InterruptedException if the thread is interrupted, while pausing or during a batch
     */
    public void run(BooleanSupplier keepGoing) throws InterruptedException {
        while (keepGoing.getAsBoolean()) {
            if (Thread.interrupted()) {
                throw new InterruptedException("the outbox relay was interrupted");
            }
            int n;
            try {
                n = runOnce();
                if (n < batchSize) {
                    purgeSent(1_000);
                }
            } catch (CancellationException e) {
                Thread.interrupted();
                InterruptedException end = new InterruptedException(e.getMessage());
                end.initCause(e);
                throw end;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "outbox relay batch failed; retrying after the poll interval", e);
                n = 0;
            }
            if (n < batchSize) {
                sleeper.sleep(pollInterval);
            }
        }
    }

    /** Validating builder: every setter checks its argument at once and may be called once. */
    public static final class Builder {
        private final Outbox outbox;
        private final Publisher publisher;
        private final Set<String> set = new HashSet<>();
        private int batchSize = 100;
        private int maxAttempts = 10;
        private RetryPolicy backoff = RetryPolicy.builder().baseDelay(Duration.ofSeconds(1))
                .maxDelay(Duration.ofMinutes(5)).deadline(Duration.ofDays(1)).build();
        private Clock clock;
        private Sleeper sleeper = Sleeper.system();
        private Duration pollInterval = Duration.ofMillis(500);
        private Duration retention = Duration.ofDays(7);
        private boolean orderedByKey;
        private Consumer<OutboxRecord> onDeadLetter = r -> { };
        private RelayListener listener = RelayListener.NONE;
        private Ticker ticker = Ticker.system();

        Builder(Outbox outbox, Publisher publisher) {
            this.outbox = Objects.requireNonNull(outbox, "outbox");
            this.publisher = Objects.requireNonNull(publisher, "publisher");
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new IllegalStateException(name + " was already set");
            }
        }

        private static Duration positive(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive but was " + d);
            }
            return d;
        }

        /**
         * The most rows one batch claims (default 100). Their locks are held while they are published.
         *
         * @param batchSize 1..10000
         * @return this builder
         */
        public Builder batchSize(int batchSize) {
            once("batchSize");
            if (batchSize < 1 || batchSize > 10_000) {
                throw new IllegalArgumentException("batchSize must be within 1..10000 but was " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /**
         * How many publish attempts a message gets before it is marked dead (default 10).
         *
         * @param maxAttempts 1..1000
         * @return this builder
         */
        public Builder maxAttempts(int maxAttempts) {
            once("maxAttempts");
            if (maxAttempts < 1 || maxAttempts > 1000) {
                throw new IllegalArgumentException("maxAttempts must be within 1..1000 but was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * The backoff between a message's attempts: idem-client's policy, of which only
         * {@link RetryPolicy#backoff} (base, cap, jitter, randomness) is used (default: full
         * jitter, base 1 s, cap 5 min).
         *
         * @param policy the policy
         * @return this builder
         */
        public Builder backoff(RetryPolicy policy) {
            once("backoff");
            this.backoff = Objects.requireNonNull(policy, "backoff");
            return this;
        }

        /**
         * The clock for due times, sent times and retention (default: the outbox's clock).
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            once("clock");
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * What pauses {@link Relay#run} between short batches (default real sleeping).
         *
         * @param sleeper the sleeper
         * @return this builder
         */
        public Builder sleeper(Sleeper sleeper) {
            once("sleeper");
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
            return this;
        }

        /**
         * The pause after a batch that was not full (default 500 ms).
         *
         * @param interval positive
         * @return this builder
         */
        public Builder pollInterval(Duration interval) {
            once("pollInterval");
            this.pollInterval = positive("pollInterval", interval);
            return this;
        }

        /**
         * How long sent rows are kept before {@link Relay#purgeSent} deletes them (default 7 days).
         *
         * @param retention positive
         * @return this builder
         */
        public Builder retention(Duration retention) {
            once("retention");
            this.retention = positive("retention", retention);
            return this;
        }

        /**
         * Publishes each aggregate key's messages one at a time in id order (default off; see
         * the class Javadoc for the cost).
         *
         * @param ordered whether to keep per-key order
         * @return this builder
         */
        public Builder orderedByKey(boolean ordered) {
            once("orderedByKey");
            this.orderedByKey = ordered;
            return this;
        }

        /**
         * Receives each dead message after the commit that marked it dead (state {@code F}),
         * never for a row whose batch rolled back (it is pending again and may yet be sent), so
         * never for a row that was sent. Each call runs in a transaction of its own that then
         * marks that row reported (state {@code D}): called once per dead row, and that row's call
         * (only that one) again if the relay dies (or the database fails) between the call and its
         * mark's commit, with the same {@link OutboxRecord#eventId()} (a stable id to deduplicate
         * by); an exception it throws is logged and the call repeated after the next batch.
         *
         * @param callback the callback
         * @return this builder
         */
        public Builder onDeadLetter(Consumer<OutboxRecord> callback) {
            once("onDeadLetter");
            this.onDeadLetter = Objects.requireNonNull(callback, "onDeadLetter");
            return this;
        }

        /**
         * Receives what each batch did, for metrics (default: nothing).
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(RelayListener listener) {
            once("listener");
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Times batches for {@link RelayBatch#duration()} (default {@link System#nanoTime()}).
         *
         * @param ticker the ticker
         * @return this builder
         */
        public Builder ticker(Ticker ticker) {
            once("ticker");
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Builds the relay.
         *
         * @return the relay
         */
        public Relay build() {
            return new Relay(this);
        }
    }
}
