package dev.idem.http;

import dev.idem.engine.FailureClassifier;
import jakarta.servlet.http.HttpServletRequest;
import java.io.PrintStream;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The Spring Boot application of {@link SpringTransactionalKillTest}, run as a child JVM
 * ({@link ChildServer}): Spring MVC on the embedded server, the starter's JDBC transactional mode
 * on every covered route ({@code idem.http.transactional=true}) over the application's PostgreSQL
 * {@code DataSource} and Boot's {@code DataSourceTransactionManager}, and the suite's handler
 * booking its row through {@code JdbcTemplate}, which joins the Spring-managed transaction that
 * also completes the record. A crash after the commit is a {@link TransactionSynchronization}'s
 * {@code afterCommit}: the first moment the transaction is committed, before the response exists;
 * {@code X-Fail: at-commit} fails the commit in its {@code beforeCommit}, once the response was
 * written in the transaction.
 * Prints {@code LISTENING <port>} once it serves and {@code CRASHED <point>} at a crash point,
 * where the worker stops until the test kills the JVM; everything else it prints (Boot's log) goes
 * to standard error.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(SpringTransactionalServer.Charges.class)
public class SpringTransactionalServer {
    private static final PrintStream PROTOCOL = System.out;

    /** Stops the worker where it is: only the kill ends it. */
    static final TransactionalApp.Crash CRASH = (point, transaction) -> {
        PROTOCOL.println("CRASHED " + point);
        PROTOCOL.flush();
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                // Only the kill ends this worker.
            }
        }
    };

    /**
     * Starts the application.
     *
     * @param args the JDBC URL of the database, its user and password
     */
    public static void main(String[] args) {
        System.setOut(System.err);
        ConfigurableApplicationContext app = new SpringApplicationBuilder(SpringTransactionalServer.class)
                .properties("spring.datasource.url=" + args[0], "spring.datasource.username=" + args[1],
                        "spring.datasource.password=" + args[2],
                        "server.address=127.0.0.1", "server.port=0", "spring.main.banner-mode=off",
                        "idem.http.routes=/tx/**", "idem.http.transactional=true",
                        "idem.http.principal-header=X-Api-Key",
                        "idem.lease=" + TransactionalApp.LEASE.toSeconds() + "s", "idem.ttl=1h",
                        "idem.purge.enabled=false")
                .run();
        PROTOCOL.println("LISTENING " + app.getEnvironment().getProperty("local.server.port"));
        PROTOCOL.flush();
    }

    @Bean
    FailureClassifier failureClassifier() {
        return TransactionalApp.classifier();
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(a -> a.anyRequest().permitAll()).csrf(c -> c.disable()).build();
    }

    /** The suite's handler, writing through Spring's JDBC support. */
    @RestController
    public static class Charges {
        private final JdbcTemplate jdbc;
        private final DataSource dataSource;

        Charges(JdbcTemplate jdbc, DataSource dataSource) {
            this.jdbc = jdbc;
            this.dataSource = dataSource;
        }

        @PostMapping(TransactionalApp.PATH)
        ResponseEntity<byte[]> charge(HttpServletRequest request, @RequestHeader("Idempotency-Key") String key,
                @RequestHeader(name = TransactionalApp.CRASH, required = false) String crash,
                @RequestHeader(name = TransactionalApp.FAIL, required = false) String fail) {
            if ("at-commit".equals(fail)) {
                // Runs at the commit, after the response was written in the transaction.
                TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                    @Override
                    public void beforeCommit(boolean readOnly) {
                        throw new IllegalStateException("the commit failed");
                    }
                });
            }
            if (TransactionalApp.AFTER_COMMIT.equals(crash)) {
                TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                    @Override
                    public void afterCommit() {
                        CRASH.here(TransactionalApp.AFTER_COMMIT, null);
                    }
                });
            }
            TransactionalApp.Reply reply = TransactionalApp.handle(
                    request.getAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE), new TransactionalApp.Ledger() {
                        @Override
                        public void book(String id, String idemKey, int attempt) {
                            jdbc.update(TransactionalApp.INSERT, id, idemKey, attempt);
                        }

                        @Override
                        public java.sql.Connection connection() {
                            return DataSourceUtils.getConnection(dataSource);
                        }
                    }, key, Optional.ofNullable(crash), Optional.ofNullable(fail), CRASH);
            return ResponseEntity.status(reply.status()).contentType(MediaType.parseMediaType(reply.contentType()))
                    .body(reply.body());
        }
    }
}
