package dev.idem.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.benchmarks.internal.Servers;
import dev.idem.outbox.jdbc.Outbox;
import dev.idem.outbox.jdbc.OutboxMessage;
import dev.idem.outbox.jdbc.Relay;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Outbox relay throughput on PostgreSQL: each invocation drains {@value #ROWS} freshly
 * enqueued rows (enqueued in the untimed setup) with 1 or 2 relays in parallel, batches of
 * 100, a publisher that does nothing (so the relay and the database are what is measured), with
 * and without per-key ordering (20 keys). JMH reports time per message; messages/s is its
 * inverse.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, batchSize = 1)
@Measurement(iterations = 8, batchSize = 1)
@Fork(1)
public class RelayBenchmark {
    static final int ROWS = 5_000;

    /** How many relays drain the table concurrently. */
    @Param({"1", "2"})
    public int relays;

    /** Whether the relays keep per-key order. */
    @Param({"false", "true"})
    public boolean ordered;

    /** The database. */
    @Param({"POSTGRES"})
    public Backend backend;

    private HikariDataSource pool;
    private Outbox outbox;
    private List<Relay> relayList;
    private ExecutorService threads;
    private final AtomicLong published = new AtomicLong();

    /** Starts the database and creates the outbox table. */
    @Setup(Level.Trial)
    public void setUp() {
        HikariConfig c = new HikariConfig();
        if (backend == Backend.POSTGRES) {
            c.setJdbcUrl(Servers.acquirePostgres());
            c.setUsername("postgres");
        } else {
            c.setJdbcUrl("jdbc:h2:mem:relay-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
            c.setUsername("sa");
        }
        c.setMaximumPoolSize(4);
        pool = new HikariDataSource(c);
        outbox = Outbox.builder(pool).tableName("bench_outbox").build().createTableIfNotExists();
        relayList = new ArrayList<>();
        for (int i = 0; i < relays; i++) {
            relayList.add(outbox.relay(r -> published.incrementAndGet()).batchSize(100).orderedByKey(ordered)
                    .build());
        }
        threads = Executors.newFixedThreadPool(relays);
    }

    /** Enqueues the rows the next invocation drains (not timed). */
    @Setup(Level.Invocation)
    public void enqueue() {
        String batch = UUID.randomUUID().toString();
        Jdbi.create(pool).useTransaction(h -> {
            for (int i = 0; i < ROWS; i++) {
                outbox.enqueue(h, new OutboxMessage(batch + "-" + i, "charge.created", "k" + (i % 20),
                        ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8)));
            }
        });
    }

    /** Stops everything. */
    @TearDown(Level.Trial)
    public void tearDown() {
        threads.shutdownNow();
        pool.close();
        if (backend == Backend.POSTGRES) {
            Servers.releasePostgres();
        }
    }

    /**
     * Drains the table.
     *
     * @return how many messages were published so far
     * @throws Exception if a relay fails
     */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long drain() throws Exception {
        List<Future<?>> futures = new ArrayList<>();
        for (Relay relay : relayList) {
            futures.add(threads.submit(() -> {
                while (relay.runOnce() > 0) {
                    // next batch
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        return published.get();
    }
}
