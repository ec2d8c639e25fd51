package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.store.jdbc.internal.Schema;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The MySQL/MariaDB claim and lease-extension procedures: installed by
 * {@code createTableIfNotExists()} (once, idempotently), required (a table migrated without
 * them is a clear non-retryable failure), and safe when the server interrupts a call.
 */
@Timeout(60)
class MariaDbProcedureTest {
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final byte[] FP = {5};

    private final String scope = "proc-" + UUID.randomUUID();

    @Test
    void createTableIfNotExistsInstallsBothProceduresAndCanRunAgain() {
        String table = "proc_" + UUID.randomUUID().toString().substring(0, 8);
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(Backend.MARIADB.dataSource()).tableName(table)
                .build().createTableIfNotExists().createTableIfNotExists();

        List<String> routines = Jdbi.create(Backend.MARIADB.dataSource()).withHandle(h -> h.createQuery(
                "SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE()"
                        + " AND ROUTINE_NAME LIKE :prefix ORDER BY ROUTINE_NAME")
                .bind("prefix", table + "\\_%").mapTo(String.class).list());
        assertThat(routines).containsExactly(table + "_claim", table + "_claim_v2", table + "_claim_v3",
                table + "_extend", table + "_extend_v2");

        IdempotencyKey key = IdempotencyKey.of(scope, "op", "k");
        assertThat(store.claim(key, FP, 1L, Duration.ofSeconds(30), TTL).status())
                .isEqualTo(ClaimResult.Status.ACQUIRED);
        assertThat(store.extendLease(key, 1L, Duration.ofSeconds(60))).isPresent();
    }

    @Test
    void aTableMigratedWithoutTheProceduresIsANonRetryableFailureNamingTheFix() {
        String table = "v1only_" + UUID.randomUUID().toString().substring(0, 8);
        Jdbi.create(Backend.MARIADB.dataSource()).useHandle(h -> {
            for (String ddl : Schema.statements(JdbcDialect.MYSQL, null, table)) {
                if (Schema.procedureName(ddl) == null) {
                    h.execute(ddl);
                }
            }
        });
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(Backend.MARIADB.dataSource()).tableName(table)
                .build();
        IdempotencyKey key = IdempotencyKey.of(scope, "op", "k");

        assertThatThrownBy(() -> store.claim(key, FP, 1L, Duration.ofSeconds(30), TTL))
                .isInstanceOfSatisfying(StoreUnavailableException.class, e -> {
                    assertThat(e.retryable()).isFalse();
                    assertThat(e.getMessage()).contains(table + "_claim_v3").contains("procedure").contains("README");
                });
        assertThat(store.find(key)).isEmpty();
    }

    @Test
    void aClaimInterruptedByTheQueryTimeoutLeavesNoTransactionOpenOnItsConnection() throws Exception {
        IdempotencyKey key = IdempotencyKey.of(scope, "op", "locked");
        assertThat(Backend.MARIADB.store().claim(key, FP, 1L, Duration.ofSeconds(30), TTL).claimed()).isTrue();

        try (Connection blocker = Backend.MARIADB.otherDataSource().getConnection();
                Connection physical = Backend.MARIADB.dataSource().getConnection()) {
            // Another transaction holds the row, so the claim's procedure waits inside its own
            // transaction until the one-second query timeout interrupts it.
            blocker.setAutoCommit(false);
            try (PreparedStatement lock = blocker.prepareStatement("SELECT token FROM idem_record"
                    + " WHERE scope = ? AND operation = ? AND idem_key = ? FOR UPDATE")) {
                lock.setBytes(1, key.scope().getBytes(StandardCharsets.UTF_8));
                lock.setBytes(2, key.operation().getBytes(StandardCharsets.UTF_8));
                lock.setBytes(3, key.key().getBytes(StandardCharsets.US_ASCII));
                try (ResultSet rs = lock.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                }
            }
            // An hour ahead, the record has expired: the claim must lock the row (a live one would be
            // answered from a plain read, without waiting).
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(new WireCounter(physical).dataSource())
                    .dialect(JdbcDialect.MYSQL).queryTimeout(Duration.ofSeconds(1))
                    .clock(java.time.Clock.offset(java.time.Clock.systemUTC(), Duration.ofHours(1))).build();

            assertThatThrownBy(() -> store.claim(key, FP, 2L, Duration.ofSeconds(30), TTL))
                    .isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.retryable()).isTrue());
            assertThat(inTransaction(physical)).as("transaction left open on the claim's connection").isZero();
            blocker.rollback();
        }
        assertThat(Backend.MARIADB.store().find(key).orElseThrow().fencingToken()).isEqualTo(1L);
    }

    private static int inTransaction(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@in_transaction")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
