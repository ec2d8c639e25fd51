package dev.idem.benchmarks;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.benchmarks.internal.Environment;
import dev.idem.benchmarks.internal.TripCounter;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Counts (never times) the round trips the engine makes to each store per call: first
 * execution, replay, in-progress conflict, and takeover of a lapsed lease. A round trip is
 * what the backend sees: Redis commands sent by clients (MONITOR, script-internal commands
 * excluded), DynamoDB HTTP requests (SDK interceptor, retries included), JDBC statement
 * executions plus commits and rollbacks (a counting DataSource under the pool), and for the
 * in-memory store its SPI calls. Run {@code main} for a markdown table of every backend.
 */
public final class RoundTrips {
    /** The minimum per call: first execution, replay, conflict, takeover (claim). */
    public static final Counts TARGETS = new Counts(2, 1, 1, 1, 2);

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);
    /** The lease of the holder that is taken over: short, because server clocks must really pass it. */
    private static final Duration HOLDER_LEASE = Duration.ofMillis(300);
    /** Margin past the holder's deadline, for clock granularity between JVM and server. */
    private static final Duration SLACK = Duration.ofMillis(150);
    private static final long WAIT_SECONDS = 30;
    private static final int WARM_KEYS = 64;
    private static final Work<Receipt> WORK = ctx -> Receipt.OK;

    private RoundTrips() {
    }

    /**
     * Round trips of one call of each kind.
     *
     * @param first a first execution: claim and complete
     * @param replay a duplicate of a completed call
     * @param conflict a duplicate during a live lease (409)
     * @param takeover the claim that takes over a lapsed lease (until the work starts)
     * @param takeoverCall the whole call that took over: claim, work, complete
     */
    public record Counts(long first, long replay, long conflict, long takeover, long takeoverCall) {
    }

    /** Prints a markdown table for the backends named in {@code args} (all if none). */
    public static void main(String[] args) {
        List<Backend> backends = new ArrayList<>();
        for (String a : args) {
            backends.add(Backend.valueOf(a.toUpperCase(Locale.ROOT)));
        }
        if (backends.isEmpty()) {
            backends.addAll(List.of(Backend.values()));
        }
        PrintStream out = System.out;
        out.println("| store | first execution | replay | conflict | takeover (claim) | takeover (whole call) |");
        out.println("| --- | ---: | ---: | ---: | ---: | ---: |");
        out.printf(Locale.ROOT, "| target | %d | %d | %d | %d | %d |%n", TARGETS.first(), TARGETS.replay(),
                TARGETS.conflict(), TARGETS.takeover(), TARGETS.takeoverCall());
        for (Backend b : backends) {
            Counts c = measure(b);
            out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s |%n", b.name().toLowerCase(Locale.ROOT),
                    mark(c.first(), TARGETS.first()), mark(c.replay(), TARGETS.replay()),
                    mark(c.conflict(), TARGETS.conflict()), mark(c.takeover(), TARGETS.takeover()),
                    mark(c.takeoverCall(), TARGETS.takeoverCall()));
        }
        out.flush();
        // The embedded servers' shutdown hooks need the JVM to exit, not just main to return.
        System.exit(0);
    }

    private static String mark(long value, long target) {
        return value == target ? Long.toString(value) : value + " (target " + target + ")";
    }

    /** Starts the backend (once per JVM) and counts one call of each kind. */
    public static Counts measure(Backend backend) {
        try (Environment env = Environment.open(backend, LEASE, TTL, true)) {
            TripCounter trips = env.trips();
            IdempotencyEngine engine = IdempotencyEngine.builder().store(env.store()).lease(LEASE).ttl(TTL).build();
            String scope = "trips-" + UUID.randomUUID();
            // Warm the path (pool connections, scripts, prepared statements) outside the counts,
            // on many keys: on Redis Cluster a key's hash picks its master, and each master
            // learns the store's scripts on its own first call (EVALSHA, NOSCRIPT, EVAL: one
            // extra command per script, once per node). With 64 keys on 3 masters, the chance
            // that one master is left cold is 3 * (2/3)^64, about 1e-11.
            for (int i = 0; i < WARM_KEYS; i++) {
                engine.execute(key(scope, "warm-" + i), Documents.PAYMENT, Receipt.class, WORK);
                engine.execute(key(scope, "warm-" + i), Documents.PAYMENT, Receipt.class, WORK);
            }

            IdempotencyKey firstKey = key(scope, "first");
            long t = trips.total();
            Result<Receipt> first = engine.execute(firstKey, Documents.PAYMENT, Receipt.class, WORK);
            long firstTrips = trips.total() - t;
            require(!first.replayed() && first.stored(), "first execution did not run and store: " + first);

            t = trips.total();
            Result<Receipt> replay = engine.execute(firstKey, Documents.PAYMENT, Receipt.class, WORK);
            long replayTrips = trips.total() - t;
            require(replay.replayed(), "the duplicate was not replayed: " + replay);

            return heldKey(env, engine, trips, key(scope, "held"), firstTrips, replayTrips);
        }
    }

    private static Counts heldKey(Environment env, IdempotencyEngine engine, TripCounter trips, IdempotencyKey key,
            long firstTrips, long replayTrips) {
        IdempotencyEngine holder = IdempotencyEngine.builder().store(env.store()).lease(HOLDER_LEASE).ttl(TTL)
                .build();
        CountDownLatch inWork = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicReference<Instant> holderDeadline = new AtomicReference<>();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            // A holder that stalls in its work (a slow or crashed worker) until after the takeover.
            Future<Object> held = pool.submit(() -> {
                try {
                    return holder.execute(key, Documents.PAYMENT, Receipt.class, ctx -> {
                        holderDeadline.set(ctx.leaseDeadline());
                        inWork.countDown();
                        if (!finish.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("never told to finish");
                        }
                        return Receipt.OK;
                    });
                } catch (LeaseLostException expected) {
                    return expected;
                }
            });
            require(await(inWork), "the holder never started its work");

            long t = trips.total();
            boolean conflicted = false;
            try {
                engine.execute(key, Documents.PAYMENT, Receipt.class, WORK);
            } catch (RequestInProgressException expected) {
                conflicted = true;
            }
            long conflictTrips = trips.total() - t;
            require(conflicted, "the duplicate did not meet the live lease");

            sleepUntil(holderDeadline.get().plus(SLACK));
            AtomicLong claimTrips = new AtomicLong(-1);
            t = trips.total();
            long start = t;
            Result<Receipt> took = engine.execute(key, Documents.PAYMENT, Receipt.class, ctx -> {
                claimTrips.set(trips.total() - start);
                return Receipt.OK;
            });
            long takeoverCall = trips.total() - t;
            require(!took.replayed() && took.attempt() == 2, "the lapsed lease was not taken over: " + took);

            finish.countDown();
            Object holderEnd = held.get(WAIT_SECONDS, TimeUnit.SECONDS);
            require(holderEnd instanceof LeaseLostException, "the stale holder completed: " + holderEnd);
            return new Counts(firstTrips, replayTrips, conflictTrips, claimTrips.get(), takeoverCall);
        } catch (Exception e) {
            throw new IllegalStateException("counting round trips failed", e);
        } finally {
            finish.countDown();
            pool.shutdownNow();
        }
    }

    private static boolean await(CountDownLatch latch) throws InterruptedException {
        return latch.await(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static void sleepUntil(Instant when) throws InterruptedException {
        long millis = Duration.between(Instant.now(), when).toMillis();
        if (millis > 0) {
            Thread.sleep(millis);
        }
    }

    private static IdempotencyKey key(String scope, String k) {
        return IdempotencyKey.of(scope, StoreBenchmark.OPERATION, k);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException(message);
        }
    }
}
