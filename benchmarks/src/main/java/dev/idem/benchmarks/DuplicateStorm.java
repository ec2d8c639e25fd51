package dev.idem.benchmarks;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.benchmarks.internal.HybridEnvironment;
import dev.idem.benchmarks.internal.HybridEnvironment.Kind;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A duplicate storm: {@code keys} first calls held in progress (their work blocked), then
 * {@code duplicates} duplicates of each sent from {@code threads} threads (each a fail-fast 409);
 * then the work finishes, one replay per key teaches the gate the outcome, and another storm of
 * the same size replays. Counts the database statements of each phase, so statements per
 * duplicate can be compared between the hybrid store and PostgreSQL alone; the same phases are
 * timed by {@link DuplicateStormBenchmark}. Run {@code main} for a markdown table (100 keys x 100
 * duplicates).
 */
public final class DuplicateStorm implements AutoCloseable {
    private static final Duration LEASE = Duration.ofMinutes(10);
    private static final long WAIT_SECONDS = 120;

    private final HybridEnvironment env;
    private final IdempotencyEngine engine;
    private final List<IdempotencyKey> held = new ArrayList<>();
    private final List<IdempotencyKey> completed = new ArrayList<>();
    private final int duplicates;
    private final ExecutorService holders;
    private final ExecutorService senders;
    private final CountDownLatch finish = new CountDownLatch(1);
    private final List<Future<Result<Receipt>>> holding = new ArrayList<>();

    /**
     * Statements of each phase.
     *
     * @param keys keys in the storm
     * @param duplicates duplicates of each key per storm
     * @param inFlight statements for the storm while the work is in progress
     * @param teach statements for the one replay per key after the work finished
     * @param replays statements for the storm after that
     */
    public record Counts(int keys, int duplicates, long inFlight, long teach, long replays) {
        /**
         * Database statements per duplicate while the work is in progress.
         *
         * @return statements per duplicate
         */
        public double perInFlightDuplicate() {
            return (double) inFlight / ((long) keys * duplicates);
        }

        /**
         * Database statements per duplicate once the work finished and every key was replayed once.
         *
         * @return statements per duplicate
         */
        public double perReplayedDuplicate() {
            return (double) replays / ((long) keys * duplicates);
        }
    }

    private DuplicateStorm(Kind kind, int keys, int duplicates, int threads) {
        this.env = HybridEnvironment.open(kind, true, false);
        this.engine = IdempotencyEngine.builder().store(env.store()).lease(LEASE).ttl(StoreBenchmark.TTL).build();
        this.duplicates = duplicates;
        this.holders = Executors.newFixedThreadPool(keys);
        this.senders = Executors.newFixedThreadPool(threads);
        String scope = "storm-" + UUID.randomUUID();
        for (int i = 0; i < keys; i++) {
            held.add(IdempotencyKey.of(scope, StoreBenchmark.OPERATION, "held-" + i));
            completed.add(IdempotencyKey.of(scope, StoreBenchmark.OPERATION, "done-" + i));
        }
    }

    /**
     * Opens the store, holds {@code keys} keys in progress and completes (and replays once)
     * another {@code keys} keys.
     *
     * @param kind the store
     * @param keys keys in the storm
     * @param duplicates duplicates of each key per storm
     * @param threads threads sending duplicates
     * @return the storm, ready
     */
    public static DuplicateStorm open(Kind kind, int keys, int duplicates, int threads) {
        DuplicateStorm s = new DuplicateStorm(kind, keys, duplicates, threads);
        try {
            s.holdAll();
            for (IdempotencyKey k : s.completed) {
                s.engine.execute(k, Documents.PAYMENT, Receipt.class, ctx -> Receipt.OK);
            }
            s.teach(s.completed);
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private void holdAll() {
        CountDownLatch started = new CountDownLatch(held.size());
        for (IdempotencyKey k : held) {
            holding.add(holders.submit(() -> engine.execute(k, Documents.PAYMENT, Receipt.class, ctx -> {
                started.countDown();
                if (!finish.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never told to finish");
                }
                return Receipt.OK;
            })));
        }
        await(started);
    }

    /**
     * Sends the storm of duplicates of the keys in progress; every one must be refused (409).
     *
     * @return the number of duplicates sent
     */
    public long inFlightStorm() {
        return storm(held, true);
    }

    /**
     * Sends the storm of duplicates of completed keys the store has replayed once; every one must replay.
     *
     * @return the number of duplicates sent
     */
    public long replayStorm() {
        return storm(completed, false);
    }

    private long storm(List<IdempotencyKey> keys, boolean inProgress) {
        List<Future<?>> sent = new ArrayList<>();
        Work<Receipt> never = ctx -> {
            throw new IllegalStateException("a duplicate ran the work");
        };
        for (IdempotencyKey k : keys) {
            sent.add(senders.submit(() -> {
                for (int d = 0; d < duplicates; d++) {
                    try {
                        Result<Receipt> r = engine.execute(k, Documents.PAYMENT, Receipt.class, never);
                        if (inProgress || !r.replayed()) {
                            throw new IllegalStateException("expected " + (inProgress ? "a 409" : "a replay")
                                    + " for " + k + " but got " + r);
                        }
                    } catch (RequestInProgressException e) {
                        if (!inProgress) {
                            throw e;
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : sent) {
            get(f);
        }
        return (long) keys.size() * duplicates;
    }

    /** Lets the held work finish. */
    private void finishHeld() {
        finish.countDown();
        for (Future<Result<Receipt>> f : holding) {
            get(f);
        }
    }

    private void teach(List<IdempotencyKey> keys) {
        for (IdempotencyKey k : keys) {
            if (!engine.execute(k, Documents.PAYMENT, Receipt.class, ctx -> Receipt.OK).replayed()) {
                throw new IllegalStateException("the first replay of " + k + " ran the work");
            }
        }
    }

    /**
     * Runs both storms on a fresh storm and counts the statements of each phase.
     *
     * @param kind the store
     * @param keys keys in the storm
     * @param duplicates duplicates of each key per storm
     * @param threads threads sending duplicates
     * @return the counts
     */
    public static Counts measure(Kind kind, int keys, int duplicates, int threads) {
        try (DuplicateStorm s = open(kind, keys, duplicates, threads)) {
            long t0 = s.env.statements();
            s.inFlightStorm();
            long t1 = s.env.statements();
            s.finishHeld();
            long t2 = s.env.statements();
            s.teach(s.held);
            long t3 = s.env.statements();
            // The held keys, now completed and replayed once, get the replay storm.
            s.storm(s.held, false);
            long t4 = s.env.statements();
            return new Counts(keys, duplicates, t1 - t0, t3 - t2, t4 - t3);
        }
    }

    /** Prints a markdown table: 100 keys, 100 duplicates each, 16 sending threads. */
    public static void main(String[] args) {
        PrintStream out = System.out;
        out.println("| store | statements per duplicate, work in progress | statements per key, first replay"
                + " | statements per duplicate, later replays |");
        out.println("| --- | ---: | ---: | ---: |");
        for (Kind k : new Kind[] {Kind.HYBRID, Kind.POSTGRES}) {
            Counts c = measure(k, 100, 100, 16);
            out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.2f |%n", k.name().toLowerCase(Locale.ROOT),
                    c.perInFlightDuplicate(), (double) c.teach() / c.keys(), c.perReplayedDuplicate());
        }
        out.flush();
        System.exit(0);
    }

    @Override
    public void close() {
        finish.countDown();
        holders.shutdownNow();
        senders.shutdownNow();
        env.close();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the held work did not start within " + WAIT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static <T> T get(Future<T> f) {
        try {
            return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("a storm call failed", e);
        }
    }
}
