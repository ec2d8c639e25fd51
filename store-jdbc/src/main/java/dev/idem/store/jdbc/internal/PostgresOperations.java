package dev.idem.store.jdbc.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.jdbc.JdbcDialect;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;

/** PostgreSQL: every operation is one statement. */
final class PostgresOperations extends DialectOperations {

    PostgresOperations(Jdbi jdbi, String table, int queryTimeoutSeconds, Clock clock) {
        super(jdbi, JdbcDialect.POSTGRESQL, table, queryTimeoutSeconds, clock);
    }

    // One INSERT ... ON CONFLICT DO UPDATE ... WHERE <claimable> RETURNING; the previous row
    // is read with FOR UPDATE first, so it is the row the upsert judges. Returns null when no
    // row existed to lock but a concurrent insert committed before the upsert, so the caller retries.
    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fp, long token, long leaseMs, long lifeMs) {
        return jdbi.withHandle(h -> prepared(h.createQuery(sql.claim), key)
                .bind("fp", fp).bind("token", token).bind("leaseMs", leaseMs).bind("lifeMs", lifeMs)
                .map((rs, ctx) -> {
                    long now = rs.getLong("now_ms");
                    Row prev = Row.readOptional(rs, now);
                    long newAttempt = rs.getLong("new_attempt");
                    if (!rs.wasNull()) {
                        StoredRecord mine = inProgress(key, fp, token, (int) newAttempt,
                                rs.getLong("new_created_at"), now, leaseMs, lifeMs, rs.getBytes("new_journal"));
                        boolean takeover = prev != null && !prev.expired() && prev.state == 'I';
                        return Optional.of(takeover ? ClaimResult.takenOver(mine, Instant.ofEpochMilli(now))
                                : ClaimResult.acquired(mine, Instant.ofEpochMilli(now)));
                    }
                    if (prev == null || claimable(prev, fp)) {
                        return Optional.<ClaimResult>empty();
                    }
                    return Optional.of(ClaimResult.existing(prev.toRecord(key), Instant.ofEpochMilli(now)));
                })
                .one()
                .orElse(null));
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long token, long leaseMs) {
        return jdbi.withHandle(h -> prepared(h.createQuery(sql.extend), key)
                .bind("token", token).bind("leaseMs", leaseMs).mapTo(Long.class).findOne())
                .map(Instant::ofEpochMilli);
    }
}
