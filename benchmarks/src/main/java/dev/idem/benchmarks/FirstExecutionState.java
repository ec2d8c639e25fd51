package dev.idem.benchmarks;

import dev.idem.api.IdempotencyKey;
import dev.idem.benchmarks.internal.Environment;
import dev.idem.benchmarks.internal.TripCounter;
import dev.idem.engine.IdempotencyEngine;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The set-up of the benchmarks that time first executions on one store: the store opened, an
 * engine on it with the benchmarks' lease and TTL, and a new key of one scope for every call, so
 * every call is a first execution. Subclasses name the store ({@link #backend()}) and hold the
 * {@code @Benchmark} methods.
 */
@State(Scope.Benchmark)
public abstract class FirstExecutionState {
    /** Whether to count round trips (the smoke test does; timing runs do not, it adds overhead). */
    boolean countTrips;

    /** The engine on the store, once {@link #setUp()} ran. */
    IdempotencyEngine engine;

    private Environment env;
    private final String scope = getClass().getSimpleName() + "-" + UUID.randomUUID();
    private final AtomicLong sequence = new AtomicLong();

    /** Creates the state; JMH does, once per trial. */
    protected FirstExecutionState() {
    }

    /**
     * The store under test.
     *
     * @return the store
     */
    protected abstract Backend backend();

    /** Starts the backend and builds the engine. */
    @Setup
    public void setUp() {
        env = Environment.open(backend(), StoreBenchmark.LEASE, StoreBenchmark.TTL, countTrips);
        engine = IdempotencyEngine.builder().store(env.store()).lease(StoreBenchmark.LEASE)
                .ttl(StoreBenchmark.TTL).build();
    }

    /** Closes the clients (the servers go with the JVM). */
    @TearDown
    public void tearDown() {
        env.close();
    }

    /** Round trips so far, when counting. */
    long trips() {
        TripCounter counter = env.trips();
        if (counter == null) {
            throw new IllegalStateException("set countTrips before setUp to count round trips");
        }
        return counter.total();
    }

    /** A key no call has used. */
    IdempotencyKey next() {
        return IdempotencyKey.of(scope, StoreBenchmark.OPERATION, "k" + sequence.incrementAndGet());
    }
}
