package dev.idem.store.jdbc.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.jdbc.JdbcDialect;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

/**
 * H2 runs in process, so several statements cost no network round trip: the claim is a
 * short local transaction holding the row lock from its read to its write.
 */
final class H2Operations extends DialectOperations {

    H2Operations(Jdbi jdbi, String table, int queryTimeoutSeconds, Clock clock) {
        super(jdbi, JdbcDialect.H2, table, queryTimeoutSeconds, clock);
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fp, long token, long leaseMs, long lifeMs)
            throws SQLException {
        return jdbi.withHandle(h -> h.inTransaction(TransactionIsolationLevel.READ_COMMITTED,
                tx -> claimUnderRowLock(tx, key, fp, token, leaseMs, lifeMs)));
    }

    // SELECT ... FOR UPDATE locks the row; the UPDATE still states the claim condition, so
    // the database decides. An absent row is INSERTed; a concurrent insert fails with a
    // duplicate key and the caller retries.
    private ClaimResult claimUnderRowLock(Handle tx, IdempotencyKey key, byte[] fp, long token, long leaseMs,
            long lifeMs) throws SQLException {
        Optional<Row> locked = prepared(tx.createQuery(sql.lockRow), key).map((rs, ctx) -> Row.read(rs)).findOne();
        if (locked.isEmpty()) {
            long now = clocked(timed(tx.createQuery(sql.selectNow))).mapTo(Long.class).one();
            bindKey(timed(tx.createUpdate(sql.insertRow)), key).bind("fp", fp).bind("token", token)
                    .bind("leaseUntil", now + leaseMs).bind("expiresAt", now + lifeMs).bind("now", now).execute();
            return ClaimResult.acquired(inProgress(key, fp, token, 1, now, now, leaseMs, lifeMs, null),
                    Instant.ofEpochMilli(now));
        }
        Row prev = locked.get();
        long now = prev.now;
        if (!claimable(prev, fp)) {
            return ClaimResult.existing(prev.toRecord(key), Instant.ofEpochMilli(now));
        }
        boolean fresh = prev.expired();
        int attempt = fresh ? 1 : prev.attempt + 1;
        long createdAt = fresh || prev.createdAt == null ? now : prev.createdAt;
        byte[] journal = !fresh && Arrays.equals(prev.fingerprint, fp) ? prev.journal : null;
        int n = bindKey(timed(tx.createUpdate(sql.takeRow)), key).bind("fp", fp).bind("token", token)
                .bind("attempt", attempt).bind("leaseUntil", now + leaseMs).bind("expiresAt", now + lifeMs)
                .bind("createdAt", createdAt).bind("journal", journal).bind("now", now).execute();
        if (n != 1) {
            return null;
        }
        StoredRecord mine = inProgress(key, fp, token, attempt, createdAt, now, leaseMs, lifeMs, journal);
        boolean takeover = !fresh && prev.state == 'I';
        return takeover ? ClaimResult.takenOver(mine, Instant.ofEpochMilli(now))
                : ClaimResult.acquired(mine, Instant.ofEpochMilli(now));
    }

    // The deadline is computed from the clock read just before; the UPDATE is fenced by the
    // token, so the separate read cannot let anyone else in.
    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long token, long leaseMs) {
        return jdbi.withHandle(h -> {
            long now = clocked(timed(h.createQuery(sql.selectNow))).mapTo(Long.class).one();
            long deadline = now + leaseMs;
            int n = bindKey(timed(h.createUpdate(sql.extendTo)), key).bind("token", token)
                    .bind("deadline", deadline).bind("now", now).execute();
            return n > 0 ? Optional.of(Instant.ofEpochMilli(deadline)) : Optional.<Instant>empty();
        });
    }
}
