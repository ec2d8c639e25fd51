package dev.idem.benchmarks;

import dev.idem.benchmarks.internal.Environment;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.messaging.Delivery;
import dev.idem.messaging.Inbox;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The inbox's cost per message against the bare handler it wraps: a new event (claim, run,
 * complete) and a redelivered one (claim finds it completed, replay), on the memory store and
 * on PostgreSQL. The handler itself is trivial, so the difference is the inbox.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class InboxBenchmark {
    private static final byte[] PAYLOAD = "{\"chargeId\":\"ch_1\",\"amountCents\":1250,\"currency\":\"EUR\"}"
            .getBytes(StandardCharsets.UTF_8);

    /** The store under the inbox. */
    @Param({"MEMORY", "POSTGRES"})
    public Backend backend;

    private Environment env;
    private Inbox<Long> inbox;
    private final AtomicLong ledger = new AtomicLong();
    private final AtomicLong ids = new AtomicLong();
    private String run;

    /** Starts the backend and completes the event the duplicate benchmark redelivers. */
    @Setup(Level.Trial)
    public void setUp() {
        // A short TTL keeps the memory store's size bounded by the records of the last few seconds.
        Duration ttl = backend == Backend.MEMORY ? Duration.ofSeconds(2) : StoreBenchmark.TTL;
        env = Environment.open(backend, Duration.ofSeconds(1), ttl, false);
        IdempotencyEngine engine = IdempotencyEngine.builder().store(env.store()).lease(Duration.ofSeconds(1))
                .ttl(ttl).build();
        inbox = Inbox.builder(Long.class).engine(engine).consumer("ledger").handler(m -> bare()).build();
        run = Long.toHexString(System.nanoTime());
        inbox.handle("payments", "dup-" + run, PAYLOAD);
    }

    /** Stops the backend. */
    @TearDown(Level.Trial)
    public void tearDown() {
        env.close();
    }

    /**
     * The handler alone: what a consumer without an inbox does per message.
     *
     * @return the ledger total
     */
    @Benchmark
    public long bare() {
        return ledger.addAndGet(1250);
    }

    /**
     * A first delivery through the inbox.
     *
     * @return the delivery
     */
    @Benchmark
    public Delivery<Long> inboxNewEvent() {
        return inbox.handle("payments", "e-" + run + "-" + ids.incrementAndGet(), PAYLOAD);
    }

    /**
     * A redelivery of a completed event: acknowledged without running the handler.
     *
     * @return the delivery
     */
    @Benchmark
    public Delivery<Long> inboxDuplicate() {
        return inbox.handle("payments", "dup-" + run, PAYLOAD);
    }
}
