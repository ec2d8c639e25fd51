package dev.idem.store.jdbc.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/** One record as read from the table, plus the database clock at the read. */
public final class Row {
    /** The state code. */
    public final char state;
    /** The fingerprint. */
    public final byte[] fingerprint;
    /** The fencing token. */
    public final long token;
    /** The attempt count. */
    public final int attempt;
    /** The lease deadline in epoch ms, or null. */
    public final Long leaseUntil;
    /** The expiry in epoch ms. */
    public final long expiresAt;
    /** The outcome, or null. */
    public final byte[] outcome;
    /** The creation time in epoch ms; null on rows written before the column existed. */
    public final Long createdAt;
    /** The step journal, or null. */
    public final byte[] journal;
    /** The database clock in epoch ms. */
    public final long now;

    private Row(ResultSet rs, long now) throws SQLException {
        String s = rs.getString("state");
        if (s == null || s.length() != 1) {
            throw new SQLException("unreadable record state '" + s + "'");
        }
        this.state = s.charAt(0);
        this.fingerprint = rs.getBytes("fingerprint");
        this.token = rs.getLong("token");
        this.attempt = rs.getInt("attempt");
        long lease = rs.getLong("lease_until");
        this.leaseUntil = rs.wasNull() ? null : lease;
        this.expiresAt = rs.getLong("expires_at");
        this.outcome = rs.getBytes("outcome");
        long created = rs.getLong("created_at");
        this.createdAt = rs.wasNull() ? null : created;
        this.journal = rs.getBytes("journal");
        this.now = now;
    }

    /** Reads the record columns and the {@code now_ms} column of the current result row. */
    public static Row read(ResultSet rs) throws SQLException {
        return new Row(rs, rs.getLong("now_ms"));
    }

    /** Reads the record columns, or null if the {@code state} column is null (no record). */
    public static Row readOptional(ResultSet rs, long now) throws SQLException {
        return rs.getString("state") == null ? null : new Row(rs, now);
    }

    /** Whether the record counts as absent at its read time. */
    public boolean expired() {
        return expiresAt <= now;
    }

    /**
     * The snapshot the SPI hands out. A row from before the {@code created_at} column (an
     * upgraded table) reports its read time as its creation time: unknown, and never in the future.
     */
    public StoredRecord toRecord(IdempotencyKey key) throws SQLException {
        RecordState rs;
        try {
            rs = RecordState.fromCode(state);
        } catch (IllegalArgumentException e) {
            throw new SQLException("unreadable record state '" + state + "'", e);
        }
        if (fingerprint == null || attempt < 1 || (rs == RecordState.IN_PROGRESS && leaseUntil == null)) {
            throw new SQLException("inconsistent record for " + key + ": state " + state + ", attempt " + attempt);
        }
        byte[] out = rs == RecordState.COMPLETED ? (outcome == null ? new byte[0] : outcome) : null;
        Instant lease = rs == RecordState.IN_PROGRESS ? Instant.ofEpochMilli(leaseUntil) : null;
        Instant created = Instant.ofEpochMilli(createdAt == null ? now : createdAt);
        byte[] steps = rs == RecordState.COMPLETED ? null : journal;
        return new StoredRecord(key, rs, fingerprint, token, attempt, created, lease, Instant.ofEpochMilli(expiresAt),
                out, steps);
    }
}
