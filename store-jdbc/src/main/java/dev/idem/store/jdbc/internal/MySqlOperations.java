package dev.idem.store.jdbc.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.jdbc.JdbcDialect;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * MySQL/MariaDB: no {@code RETURNING} on an upsert, so the claim and the lease extension
 * are one {@code CALL} each of the procedures the V4 and V3 scripts create; the rest are single
 * statements.
 */
final class MySqlOperations extends DialectOperations {

    MySqlOperations(Jdbi jdbi, String table, int queryTimeoutSeconds, Clock clock) {
        super(jdbi, JdbcDialect.MYSQL, table, queryTimeoutSeconds, clock);
    }

    // One CALL of <table>_claim_v3, which answers a live completed record or live lease from a
    // consistent read, and otherwise inserts or locks the row, decides and writes in its own
    // transaction; it answers with one row: the clock, the status (A acquired, T taken
    // over, E existing) and the record.
    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fp, long token, long leaseMs, long lifeMs) {
        return jdbi.withHandle(h -> endingOpenTransactionOnFailure(h, () -> prepared(h.createQuery(sql.claim), key)
                .bind("fp", fp).bind("token", token).bind("leaseMs", leaseMs).bind("lifeMs", lifeMs)
                .map((rs, ctx) -> {
                    Row row = Row.read(rs);
                    String status = rs.getString("status");
                    StoredRecord record = row.toRecord(key);
                    Instant now = Instant.ofEpochMilli(row.now);
                    if ("A".equals(status)) {
                        return ClaimResult.acquired(record, now);
                    }
                    if ("T".equals(status)) {
                        return ClaimResult.takenOver(record, now);
                    }
                    if ("E".equals(status)) {
                        return ClaimResult.existing(record, now);
                    }
                    throw new SQLException("unexpected claim status '" + status + "' from " + sql.claim);
                })
                .one()));
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long token, long leaseMs) {
        return jdbi.withHandle(h -> endingOpenTransactionOnFailure(h,
                () -> prepared(h.createQuery(sql.extend), key).bind("token", token).bind("leaseMs", leaseMs)
                        .map((rs, ctx) -> {
                            long deadline = rs.getLong("lease_until");
                            return rs.wasNull() ? Optional.<Instant>empty()
                                    : Optional.of(Instant.ofEpochMilli(deadline));
                        }).one()));
    }

    // READ COMMITTED: no gap locks on the expiry index, so claims are not blocked.
    @Override
    public int purge(int limit) {
        return jdbi.withHandle(h -> h.inTransaction(TransactionIsolationLevel.READ_COMMITTED,
                tx -> clocked(timed(tx.createUpdate(sql.purge))).bind("limit", limit).execute()));
    }

    @Override
    protected boolean zeroMayMeanUnchanged() {
        return true;
    }

    // A procedure interrupted by the server (query timeout, KILL QUERY) before its exit
    // handler ran can leave its transaction open, holding the row lock, on a connection that
    // goes back to the pool: end it before handing the connection back. A connection the
    // driver already closed (network failure) needs nothing: the server ends its session.
    private static <T> T endingOpenTransactionOnFailure(Handle h, Supplier<T> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            try {
                if (!h.getConnection().isClosed()) {
                    try (Statement s = h.getConnection().createStatement()) {
                        s.execute("ROLLBACK");
                    }
                }
            } catch (SQLException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }
}
