package dev.idem.examples;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import java.io.PrintStream;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Exactly-once effect end to end: a payments service (JDK HTTP server, idem-http,
 * store-jdbc) behind a fault-injecting proxy, driven by idem-client from several threads,
 * then an audit of the ledger against the intents. Run with
 * {@code java -jar examples/target/idem-examples.jar [--help]}; exits 0 when the audit
 * passes, 1 when it fails, 2 on bad arguments.
 */
public final class PaymentsDemo {
    private PaymentsDemo() {
    }

    /** Runs the demo from the command line. */
    public static void main(String[] args) throws Exception {
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            System.out.println(DemoSettings.usage());
            return;
        }
        DemoSettings settings;
        try {
            settings = DemoSettings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Audit audit;
        try {
            audit = run(settings, System.out);
        } catch (Exception e) {
            // A database that cannot be reached is the usual cause; say so without a wall of stack frames.
            System.err.println("demo failed: " + e);
            for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                System.err.println("  caused by: " + c);
            }
            System.exit(1);
            return;
        }
        System.exit(audit.passed() ? 0 : 1);
    }

    /** Runs one scenario, printing progress and the audit to {@code out}. */
    public static Audit run(DemoSettings settings, PrintStream out) throws Exception {
        SecureRandom random = new SecureRandom();
        String runId = HexFormat.of().formatHex(random.generateSeed(6));
        String merchant = "merchant-" + runId;
        String apiKey = "sk_test_" + HexFormat.of().formatHex(random.generateSeed(12));
        boolean inMemory = settings.dbUrl() == null;
        String url = inMemory ? "jdbc:h2:mem:idem-demo-" + runId + ";DB_CLOSE_DELAY=-1" : settings.dbUrl();
        out.println("idem payments demo: " + settings);

        DataSource dataSource = dataSource(url, settings.dbUser(), settings.dbPassword());
        try {
            Ledger ledger = new Ledger(dataSource).createTables();
            IdempotencyEngine engine = null;
            if (settings.idempotency()) {
                JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build().createTableIfNotExists();
                engine = IdempotencyEngine.builder().store(store).lease(Duration.ofSeconds(10))
                        .ttl(Duration.ofHours(24)).build();
            }
            try (PaymentsService service = new PaymentsService(ledger, engine, merchant, apiKey);
                    FaultInjectingProxy proxy = new FaultInjectingProxy(new FaultPlan(settings), service.port())) {
                out.println("service on 127.0.0.1:" + service.port() + ", fault-injecting proxy on 127.0.0.1:"
                        + proxy.port() + ", merchant " + merchant);
                Driver driver = new Driver(settings, proxy.port(), apiKey);
                int intents = settings.charges() + driver.refundCount();
                long start = System.nanoTime();
                ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "demo-progress");
                    t.setDaemon(true);
                    return t;
                });
                ticker.scheduleAtFixedRate(() -> driver.progress(out, start, intents, proxy.stats()), 1, 1,
                        TimeUnit.SECONDS);
                try {
                    driver.run();
                } finally {
                    ticker.shutdownNow();
                }
                driver.progress(out, start, intents, proxy.stats());
                Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
                Audit audit = audit(settings, driver, proxy.stats(), service, ledger, merchant, elapsed);
                audit.print(out);
                return audit;
            }
        } finally {
            if (inMemory) {
                shutdown(dataSource);
            }
            if (dataSource instanceof JdbcConnectionPool pool) {
                pool.dispose();
            }
        }
    }

    private static Audit audit(DemoSettings settings, Driver driver, FaultInjectingProxy.Stats proxy,
            PaymentsService service, Ledger ledger, String merchant, Duration elapsed) throws SQLException {
        Map<String, List<String>> charges = ledger.chargesByReference(merchant);
        Map<String, List<String>> refunds = ledger.refundsByReference(merchant);
        int[] chargeCounts = new int[3];
        int[] refundCounts = new int[3];
        int chargeRows = 0;
        int refundRows = 0;
        for (List<String> ids : charges.values()) {
            chargeRows += ids.size();
        }
        for (List<String> ids : refunds.values()) {
            refundRows += ids.size();
        }
        for (int i = 0; i < settings.charges(); i++) {
            check(charges.get(Driver.chargeReference(i)), driver.confirmedCharges.get(Driver.chargeReference(i)),
                    chargeCounts);
            if (settings.refundEvery() > 0 && i % settings.refundEvery() == 0) {
                check(refunds.get(Driver.refundReference(i)), driver.confirmedRefunds.get(Driver.refundReference(i)),
                        refundCounts);
            }
        }
        return new Audit(settings.charges(), driver.refundCount(), driver.attempts.get(), proxy.requests(),
                proxy.dropped(), proxy.badGateway(), proxy.unavailable(), proxy.duplicated(), proxy.delayed(),
                proxy.replays(), proxy.inProgress(), service.executions(), chargeRows, refundRows, chargeCounts[0],
                refundCounts[0], chargeCounts[1], refundCounts[1], chargeCounts[2] + refundCounts[2],
                driver.retries.get(), driver.budgetRefusals.get(), driver.redrives.get(), elapsed);
    }

    /** Adds to counts {duplicates, missing, mismatched} for one intent. */
    private static void check(List<String> rows, String confirmedId, int[] counts) {
        int n = rows == null ? 0 : rows.size();
        if (n > 1) {
            counts[0] += n - 1;
        }
        if (n == 0 || confirmedId == null) {
            counts[1]++;
        } else if (!rows.contains(confirmedId)) {
            counts[2]++;
        }
    }

    private static DataSource dataSource(String url, String user, String password) {
        if (url.startsWith("jdbc:postgresql:")) {
            PGSimpleDataSource pg = new PGSimpleDataSource();
            pg.setURL(url);
            if (user != null) {
                pg.setUser(user);
            }
            if (password != null) {
                pg.setPassword(password);
            }
            pg.setConnectTimeout(5);
            pg.setSocketTimeout(30);
            return pg;
        }
        JdbcConnectionPool pool = JdbcConnectionPool.create(url, user == null ? "sa" : user,
                password == null ? "" : password);
        pool.setMaxConnections(32);
        return pool;
    }

    private static void shutdown(DataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        } catch (SQLException e) {
            // Already gone; nothing to free.
        }
    }
}
