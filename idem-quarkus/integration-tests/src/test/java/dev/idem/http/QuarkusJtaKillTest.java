package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.ExecutionContext;
import dev.idem.jaxrs.Idempotent;
import dev.idem.testsupport.postgres.EmbeddedPostgresServer;
import io.agroal.api.AgroalDataSource;
import io.quarkus.arc.properties.IfBuildProperty;
import io.quarkus.test.QuarkusProdModeTest;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code idem.http.transactional=true} (the JTA mode) with real crashes: the application, built as
 * in production, runs in its own JVM over a real PostgreSQL, its {@code @Idempotent} resource
 * books through a {@code @Transactional} bean over the injected {@code AgroalDataSource}, and the
 * JVM is killed with {@code kill -9} ({@link Process#destroyForcibly}, SIGKILL) while the method
 * runs after its write, at the commit after the response was written in the transaction, and
 * after the commit; a new JVM takes over. From outside, the row and the stored response are both
 * there or both absent, and the retry runs the method once in all. Tagged {@code prod-mode}:
 * Quarkus runs it only in a JVM without {@code @QuarkusTest}s (a surefire execution of its own).
 */
@Tag("prod-mode")
class QuarkusJtaKillTest {
    private static final String PATH = "/kill/charges";
    private static final String AFTER_WRITE = "after-write";
    private static final java.nio.file.Path MARKERS;
    private static final EmbeddedPostgres PG;
    private static final int PORT;

    static {
        try {
            MARKERS = Files.createTempDirectory("idem-jta-kill");
            try (ServerSocket s = new ServerSocket(0)) {
                PORT = s.getLocalPort();
            }
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
        PG = EmbeddedPostgresServer.start();
        TransactionalApp.createTables(PG.getPostgresDatabase());
    }

    @RegisterExtension
    static final QuarkusProdModeTest APP = new QuarkusProdModeTest()
            .withApplicationRoot(jar -> jar.addClasses(Charges.class, CrashPoint.class, Ledger.class))
            .setApplicationName("idem-jta-kill").setApplicationVersion("1")
            .overrideConfigKey("kill.app", "true")
            .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
            .overrideConfigKey("quarkus.devservices.enabled", "false")
            .overrideConfigKey("idem.store.kind", "jdbc")
            .overrideConfigKey("idem.store.jdbc.create-table", "true")
            .overrideConfigKey("idem.http.transactional", "true")
            .overrideConfigKey("idem.http.principal-header", "X-Api-Key")
            .overrideConfigKey("idem.lease", "3s")
            .overrideConfigKey("idem.purge.enabled", "false")
            .setRuntimeProperties(Map.of("quarkus.datasource.jdbc.url", PG.getJdbcUrl("postgres", "postgres"),
                    "quarkus.datasource.username", "postgres", "quarkus.datasource.password", "postgres",
                    "quarkus.http.port", String.valueOf(PORT)))
            .setJVMArgs(List.of("-Dkill.markers=" + MARKERS))
            .setLogFileName("idem-jta-kill.log")
            .setRun(true);

    private final Http http = new Http("http://127.0.0.1:" + PORT);
    private final Jdbi jdbi = Jdbi.create(PG.getPostgresDatabase());

    @AfterAll
    static void stopDatabase() throws IOException {
        PG.close();
    }

    @Test
    void killedWhileTheMethodRunsAfterItsWriteNeitherIsKeptAndTheRetryRunsOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        crash(key, AFTER_WRITE);

        assertThat(effects(key)).isZero();
        assertThat(storedStatus(key)).isEqualTo("I");
        HttpResponse<byte[]> retry = retryUntilTakenOver(key);
        assertThat(retry.statusCode()).as(Http.text(retry)).isEqualTo(201);
        assertThat(status(retry)).isEqualTo("stored");
        assertThat(Http.text(retry)).contains("\"attempt\":2");
        assertThat(effects(key)).isEqualTo(1);
        assertThat(status(charge(key))).isEqualTo("replayed");
        assertThat(effects(key)).isEqualTo(1);
    }

    @Test
    void killedAtTheCommitAfterTheResponseWasWrittenNeitherIsKeptAndTheRetryRunsOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        crash(key, TransactionalApp.BEFORE_COMMIT);

        assertThat(effects(key)).isZero();
        assertThat(storedStatus(key)).isEqualTo("I");
        HttpResponse<byte[]> retry = retryUntilTakenOver(key);
        assertThat(retry.statusCode()).as(Http.text(retry)).isEqualTo(201);
        assertThat(status(retry)).isEqualTo("stored");
        assertThat(Http.text(retry)).contains("\"attempt\":2");
        assertThat(effects(key)).isEqualTo(1);
    }

    @Test
    void killedAfterTheCommitBothAreKeptAndTheRetryGetsTheStoredResponse() throws Exception {
        String key = UUID.randomUUID().toString();
        crash(key, TransactionalApp.AFTER_COMMIT);

        assertThat(effects(key)).isEqualTo(1);
        assertThat(storedStatus(key)).isEqualTo("C");
        HttpResponse<byte[]> retry = charge(key);
        assertThat(retry.statusCode()).as(Http.text(retry)).isEqualTo(201);
        assertThat(status(retry)).isEqualTo("replayed");
        assertThat(Http.text(retry)).contains("\"attempt\":1");
        assertThat(effects(key)).isEqualTo(1);
    }

    /** Sends a request that stops its worker at {@code point}, kills the JVM there, starts a new one. */
    private void crash(String key, String point) throws Exception {
        java.nio.file.Path marker = MARKERS.resolve(key);
        java.util.concurrent.CompletableFuture<HttpResponse<byte[]>> answer = http.postAsync(PATH,
                "{\"amount\":1000}", "Idempotency-Key", key, "X-Api-Key", "tenant-a", TransactionalApp.CRASH, point);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(marker)) {
            if (answer.isDone()) {
                HttpResponse<byte[]> r = answer.getNow(null);
                java.lang.reflect.Field f = QuarkusProdModeTest.class.getDeclaredField("logfilePath");
                f.setAccessible(true);
                String log = Files.readString((java.nio.file.Path) f.get(APP));
                throw new AssertionError("the worker answered instead of stopping at " + point + ": "
                        + (r == null ? "no answer" : r.statusCode() + " " + Http.text(r)) + "\nLOG "
                        + log.substring(Math.max(0, log.length() - 6000)));
            }
            assertThat(System.nanoTime()).as("the worker reached " + point).isLessThan(end);
            Thread.sleep(20);
        }
        assertThat(Files.readString(marker)).isEqualTo(point);
        Process app = process();
        app.destroyForcibly();
        assertThat(app.waitFor(30, TimeUnit.SECONDS)).as("kill -9 ended the application's JVM").isTrue();
        APP.start();
    }

    /** The application's JVM, which QuarkusProdModeTest keeps to itself. */
    private static Process process() throws ReflectiveOperationException {
        java.lang.reflect.Field f = QuarkusProdModeTest.class.getDeclaredField("process");
        f.setAccessible(true);
        return (Process) f.get(APP);
    }

    private HttpResponse<byte[]> charge(String key) throws Exception {
        return http.post(PATH, "{\"amount\":1000}", "Idempotency-Key", key, "X-Api-Key", "tenant-a");
    }

    /** Retries while the killed worker's lease is live (409 with Retry-After), at most 60 s. */
    private HttpResponse<byte[]> retryUntilTakenOver(String key) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            HttpResponse<byte[]> r = charge(key);
            if (r.statusCode() != 409 || System.nanoTime() > end) {
                return r;
            }
            long wait = r.headers().firstValue("Retry-After").map(Long::parseLong).orElse(1L);
            Thread.sleep(TimeUnit.SECONDS.toMillis(Math.max(1, wait)));
        }
    }

    private static String status(HttpResponse<byte[]> r) {
        return r.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS).orElse("none");
    }

    private int effects(String key) {
        return TransactionalApp.effects(jdbi, key);
    }

    /** The state of {@code key}'s record, read from outside: I (in progress) or C (completed). */
    private String storedStatus(String key) {
        return jdbi.withHandle(h -> h.createQuery("select state from idem_record where idem_key = :k")
                .bind("k", key).mapTo(String.class).one()).trim();
    }

    /**
     * The resource: books through {@link Ledger}, then stops its worker where X-Crash says. Only in
     * this test's application ({@code kill.app}), not in the suite's {@code @QuarkusTest} ones.
     */
    @Path(PATH)
    @IfBuildProperty(name = "kill.app", stringValue = "true")
    public static class Charges {
        @Inject
        Ledger ledger;
        @Inject
        TransactionSynchronizationRegistry synchronizations;
        /** Where the worker says it stopped (a file per key), for the test to see from outside. */
        private final String markers = System.getProperty("kill.markers");

        @POST
        @Idempotent
        public Response charge(byte[] body, @Context ContainerRequestContext request,
                @HeaderParam("Idempotency-Key") String key, @HeaderParam(TransactionalApp.CRASH) String crash) {
            ExecutionContext context = (ExecutionContext) request.getProperty(HttpIdempotency.CONTEXT_ATTRIBUTE);
            String id = "ch_" + UUID.randomUUID();
            ledger.book(id, key, context.attempt());
            if (AFTER_WRITE.equals(crash)) {
                CrashPoint.stop(markers, key, AFTER_WRITE);
            }
            if (TransactionalApp.BEFORE_COMMIT.equals(crash) || TransactionalApp.AFTER_COMMIT.equals(crash)) {
                synchronizations.registerInterposedSynchronization(new CrashPoint(markers, key, crash));
            }
            return Response.status(201).type("application/json")
                    .entity("{\"id\":\"" + id + "\",\"attempt\":" + context.attempt() + "}").build();
        }
    }

    /**
     * Stops the committing worker at the commit, after the response was written in the
     * transaction ({@code before-commit}), or once it committed ({@code after-commit}).
     */
    public record CrashPoint(String markers, String key, String point) implements Synchronization {
        @Override
        public void beforeCompletion() {
            if (TransactionalApp.BEFORE_COMMIT.equals(point)) {
                stop(markers, key, point);
            }
        }

        @Override
        public void afterCompletion(int status) {
            if (TransactionalApp.AFTER_COMMIT.equals(point)) {
                stop(markers, key, point);
            }
        }

        /** Tells the test where the worker is (a file per key), then stops it there: only the kill ends it. */
        static void stop(String markers, String key, String point) {
            try {
                Files.writeString(java.nio.file.Path.of(markers, key + ".tmp"), point);
                Files.move(java.nio.file.Path.of(markers, key + ".tmp"), java.nio.file.Path.of(markers, key),
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            while (true) {
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    // Only the kill ends this worker.
                }
            }
        }
    }

    /** The application's transactional service, which knows nothing of idem. */
    @IfBuildProperty(name = "kill.app", stringValue = "true")
    @ApplicationScoped
    public static class Ledger {
        @Inject
        AgroalDataSource dataSource;

        /**
         * Books one row in the caller's transaction.
         *
         * @param id the row's id
         * @param key the Idempotency-Key
         * @param attempt the execution's attempt
         */
        @Transactional
        public void book(String id, String key, int attempt) {
            try (Connection c = dataSource.getConnection(); PreparedStatement insert = c.prepareStatement(
                    "insert into tx_charge (id, idem_key, attempt) values (?, ?, ?)")) {
                insert.setString(1, id);
                insert.setString(2, key);
                insert.setInt(3, attempt);
                insert.executeUpdate();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
