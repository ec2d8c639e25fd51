package dev.idem.benchmarks.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.jdbc.JdbcDialect;
import dev.idem.store.jdbc.JdbcStatements;
import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.SqlStatement;
import org.jdbi.v3.core.statement.SqlStatements;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * The store's own SQL statements ({@link JdbcStatements}, on a table of the same shape), issued
 * through Jdbi on the same DataSource with nothing around them: the one-statement claim
 * (PostgreSQL: an upsert with RETURNING; MySQL/MariaDB: a CALL of the store's claim
 * procedure; H2: the short row-lock transaction) and the fenced UPDATE.
 */
final class JdbcRaw implements RawBaseline {
    private final Jdbi jdbi;
    private final JdbcDialect dialect;
    private final JdbcStatements sql;
    private final long leaseMillis;
    private final long ttlMillis;

    JdbcRaw(Jdbi jdbi, JdbcDialect dialect, String table, long leaseMillis, long ttlMillis) {
        this.jdbi = jdbi;
        this.dialect = dialect;
        this.sql = JdbcStatements.of(dialect, table);
        this.leaseMillis = leaseMillis;
        this.ttlMillis = ttlMillis;
    }

    @Override
    public Object claim(IdempotencyKey key, byte[] fingerprint, long token) {
        switch (dialect) {
            case POSTGRESQL:
                // One statement: the upsert's own row, or the previous row when it was not claimable.
                return jdbi.withHandle(h -> bindKey(h.createQuery(sql.claim()), key)
                        .bind("fp", fingerprint).bind("token", token).bind("leaseMs", leaseMillis)
                        .bind("lifeMs", ttlMillis)
                        .map((rs, ctx) -> {
                            rs.getLong("new_attempt");
                            return rs.wasNull() ? Optional.of(row(rs)) : Optional.empty();
                        })
                        .one()
                        .orElse(null));
            case MYSQL:
                // One CALL of the store's claim procedure, answering with a status and the record.
                return jdbi.withHandle(h -> bindKey(h.createQuery(sql.claim()), key)
                        .bind("fp", fingerprint).bind("token", token).bind("leaseMs", leaseMillis)
                        .bind("lifeMs", ttlMillis)
                        .map((rs, ctx) -> "E".equals(rs.getString("status")) ? Optional.of(row(rs))
                                : Optional.empty())
                        .one()
                        .orElse(null));
            default:
                // H2: the short row-lock transaction.
                return jdbi.withHandle(h -> h.inTransaction(TransactionIsolationLevel.READ_COMMITTED, tx -> {
                    Optional<Object> locked = bindKey(tx.createQuery(sql.lockRow()), key)
                            .map((rs, ctx) -> row(rs)).findOne();
                    if (locked.isPresent()) {
                        return locked.get();
                    }
                    long now = tx.createQuery(sql.selectNow())
                            .bindNull(JdbcStatements.CLOCK_PARAMETER, Types.BIGINT)
                            .mapTo(Long.class).one();
                    bindKey(tx.createUpdate(sql.insertRow()), key).bind("fp", fingerprint).bind("token", token)
                            .bind("leaseUntil", now + leaseMillis).bind("expiresAt", now + ttlMillis).bind("now", now)
                            .execute();
                    return null;
                }));
        }
    }

    private static Object row(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new Object[] {rs.getString("state"), rs.getBytes("fingerprint"), rs.getLong("token"),
            rs.getBytes("outcome")};
    }

    @Override
    public boolean complete(IdempotencyKey key, long token, byte[] outcome) {
        return jdbi.withHandle(h -> bindKey(h.createUpdate(sql.complete()), key).bind("token", token)
                .bind("outcome", outcome).bind("ttlMs", ttlMillis).execute()) > 0;
    }

    private <S extends SqlStatement<S>> S bindKey(S statement, IdempotencyKey key) {
        // The store's statements read an optional injected clock; null means the server's own,
        // which is what a raw baseline measures. Not every statement names it, hence unused allowed.
        statement.getConfig(SqlStatements.class).setUnusedBindingAllowed(true);
        statement.bindNull(JdbcStatements.CLOCK_PARAMETER, Types.BIGINT);
        if (dialect == JdbcDialect.MYSQL) {
            return statement.bind("scope", key.scope().getBytes(StandardCharsets.UTF_8))
                    .bind("operation", key.operation().getBytes(StandardCharsets.UTF_8))
                    .bind("key", key.key().getBytes(StandardCharsets.US_ASCII));
        }
        return statement.bind("scope", key.scope()).bind("operation", key.operation()).bind("key", key.key());
    }
}
