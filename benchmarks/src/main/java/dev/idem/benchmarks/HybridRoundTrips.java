package dev.idem.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.benchmarks.internal.HybridEnvironment;
import dev.idem.benchmarks.internal.HybridEnvironment.Kind;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.RecordFormat;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;

/**
 * Counts (never times) what one call costs on the hybrid store, Redis alone and PostgreSQL
 * alone: database statements (executions, commits, rollbacks) and Redis commands (as the server
 * sees them, commands inside scripts excluded), for a first execution, the first replay after
 * the completion, a later replay, and a duplicate of work in progress. Run {@code main} for a
 * markdown table.
 */
public final class HybridRoundTrips {
    private static final Work<Receipt> WORK = ctx -> Receipt.OK;

    private HybridRoundTrips() {
    }

    /**
     * Statements and Redis commands of one call of each kind.
     *
     * @param first a first execution: claim, work, complete
     * @param firstReplay the first duplicate after the completion
     * @param replay a later duplicate of the completed call
     * @param conflict a duplicate while the work is in progress (409)
     */
    public record Counts(Trips first, Trips firstReplay, Trips replay, Trips conflict) {
    }

    /**
     * One call's trips.
     *
     * @param statements database statements
     * @param redis Redis commands
     */
    public record Trips(long statements, long redis) {
        @Override
        public String toString() {
            return statements + " SQL + " + redis + " Redis";
        }
    }

    /** Prints a markdown table for the three stores. */
    public static void main(String[] args) {
        PrintStream out = System.out;
        out.println("| store | first execution | first replay | later replay | duplicate in progress |");
        out.println("| --- | --- | --- | --- | --- |");
        for (Kind k : Kind.values()) {
            Counts c = measure(k);
            out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", k.name().toLowerCase(Locale.ROOT), c.first(),
                    c.firstReplay(), c.replay(), c.conflict());
        }
        out.flush();
        System.exit(0);
    }

    /** Starts the servers (once per JVM) and counts one call of each kind. */
    public static Counts measure(Kind kind) {
        try (HybridEnvironment env = HybridEnvironment.open(kind, true)) {
            IdempotencyEngine engine = IdempotencyEngine.builder().store(env.store()).lease(StoreBenchmark.LEASE)
                    .ttl(StoreBenchmark.TTL).build();
            String scope = "hybrid-trips-" + UUID.randomUUID();
            byte[] fingerprint = RecordFormat.of(new ObjectMapper()).fingerprint(StoreBenchmark.OPERATION, Documents.PAYMENT);
            // Load every script and warm every path outside the counts.
            IdempotencyKey warm = key(scope, "warm");
            for (int i = 0; i < 3; i++) {
                engine.execute(warm, Documents.PAYMENT, Receipt.class, WORK);
            }
            IdempotencyKey warmHeld = key(scope, "warm-held");
            env.store().claim(warmHeld, fingerprint, 41, Duration.ofHours(1), StoreBenchmark.TTL);
            conflict(engine, warmHeld);

            IdempotencyKey k = key(scope, "first");
            Trips first = counted(env, () -> require(!engine.execute(k, Documents.PAYMENT, Receipt.class, WORK)
                    .replayed(), "the first execution replayed"));
            Trips firstReplay = counted(env, () -> require(replayed(engine, k), "the first duplicate ran"));
            Trips replay = counted(env, () -> require(replayed(engine, k), "a later duplicate ran"));
            IdempotencyKey held = key(scope, "held");
            env.store().claim(held, fingerprint, 42, Duration.ofHours(1), StoreBenchmark.TTL);
            Trips conflict = counted(env, () -> conflict(engine, held));
            return new Counts(first, firstReplay, replay, conflict);
        }
    }

    private static boolean replayed(IdempotencyEngine engine, IdempotencyKey k) {
        Result<Receipt> r = engine.execute(k, Documents.PAYMENT, Receipt.class, WORK);
        return r.replayed() && Receipt.OK.equals(r.value());
    }

    private static void conflict(IdempotencyEngine engine, IdempotencyKey held) {
        try {
            engine.execute(held, Documents.PAYMENT, Receipt.class, WORK);
        } catch (RequestInProgressException expected) {
            return;
        }
        throw new IllegalStateException("the held key " + held + " was not in progress");
    }

    private static Trips counted(HybridEnvironment env, Runnable call) {
        long statements = env.statements();
        long redis = env.redisCommands();
        call.run();
        return new Trips(env.statements() - statements, env.redisCommands() - redis);
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
