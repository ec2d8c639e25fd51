package dev.idem.store.jdbc.internal;

import dev.idem.store.jdbc.JdbcDialect;

/**
 * The statements of one dialect against one table. All instants are epoch milliseconds
 * computed by the database ({@link #now}), never by the JVM, so application nodes with skewed
 * clocks agree on every lease; only a store built with a test clock binds {@code :clockMs},
 * which then replaces the server clock in the same statements.
 */
public final class Sql {
    /** Every record column, in the order {@link Row} reads them. */
    public static final String COLUMNS =
            "state, fingerprint, token, attempt, lease_until, expires_at, outcome, created_at, journal";
    /** The bind parameter that overrides the server clock (null: use the server clock). */
    public static final String CLOCK = "clockMs";
    private static final String PK = "scope = :scope AND operation = :operation AND idem_key = :key";

    /** The database clock alone, in epoch milliseconds, as an SQL expression. */
    public final String serverNow;
    /** "Now" in every statement: the bound test clock if any, else {@link #serverNow}. */
    public final String now;
    /**
     * PostgreSQL: the whole claim as one statement. MySQL: one {@code CALL} of the
     * {@code <table>_claim_v3} procedure, answering with the clock, a status and the record.
     * Both answer a live completed record (or a live lease) from a plain read, without a lock.
     * H2: null (see {@link #lockRow}).
     */
    public final String claim;
    /** H2: reads and row-locks the current record, with the database clock. */
    public final String lockRow;
    /** The clock alone (H2: the key has no row yet, or before a lease extension). */
    public final String selectNow;
    /** H2: overwrites the locked row if it is claimable. */
    public final String takeRow;
    /** H2: inserts a fresh IN_PROGRESS row. */
    public final String insertRow;
    /** Fenced completion (also accepts a repeat of a completion by the same token); drops the journal. */
    public final String complete;
    /** Reads the record's state, token and journal (MySQL's confirmation of an idempotent repeat). */
    public final String currentRow;
    /** Fenced release; the journal stays. */
    public final String release;
    /** Fenced replacement of the journal of an IN_PROGRESS record. */
    public final String checkpoint;
    /**
     * PostgreSQL: fenced lease extension returning the new deadline. MySQL: one {@code CALL}
     * of the {@code <table>_extend_v2} procedure, answering with the new deadline or NULL.
     * H2: null (see {@link #extendTo}).
     */
    public final String extend;
    /** H2: fenced lease extension to a deadline computed from {@link #selectNow}. */
    public final String extendTo;
    /** The unexpired record, with the clock. */
    public final String find;
    /** Deletes up to {@code :limit} expired rows. */
    public final String purge;

    /** Builds the statements for {@code table}, an already validated (possibly schema-qualified) name. */
    public Sql(JdbcDialect dialect, String table) {
        String clock;
        switch (dialect) {
            case POSTGRESQL:
                serverNow = "CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)";
                clock = "CAST(:" + CLOCK + " AS BIGINT)";
                break;
            case MYSQL:
                serverNow = "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
                clock = "CAST(:" + CLOCK + " AS SIGNED)";
                break;
            case H2:
                serverNow = "CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000) AS BIGINT)";
                clock = "CAST(:" + CLOCK + " AS BIGINT)";
                break;
            default:
                throw new IllegalArgumentException("unknown dialect " + dialect);
        }
        now = "COALESCE(" + clock + ", " + serverNow + ")";
        boolean pg = dialect == JdbcDialect.POSTGRESQL;
        boolean mysql = dialect == JdbcDialect.MYSQL;
        // The clock is read once per statement: clock_timestamp() changes during a statement.
        // PostgreSQL: prev locks the row before the upsert runs (the INSERT reads prev), so a
        // writer that commits after the statement began is waited for and prev is its row, the
        // very row the upsert then judges; from the snapshot, prev could report a lapsed lease
        // that was in fact released or completed a moment before.
        // EXCLUDED.created_at is that clock. The journal survives a release or takeover only
        // for the same request; an expired row starts a new life (attempt 1, created now).
        // A live completed record or a live lease (settled) is the answer whatever the upsert would
        // do: it is read from the statement's snapshot without a lock, and then nothing is locked
        // or written (a completed record changes only once it has expired; a live lease seen a
        // moment late is an answer the claim could have got). Otherwise prev and the upsert run.
        claim = pg
                ? "WITH clock AS (SELECT " + now + " AS ms),"
                        + " settled AS (SELECT " + COLUMNS + " FROM " + table + ", clock WHERE " + PK
                        + " AND expires_at > clock.ms AND (state = 'C' OR (state = 'I' AND lease_until > clock.ms))),"
                        + " prev AS (SELECT " + COLUMNS + " FROM " + table + " WHERE " + PK
                        + " AND NOT EXISTS (SELECT 1 FROM settled) FOR UPDATE),"
                        + " claimed AS ("
                        + "INSERT INTO " + table + " AS r (scope, operation, idem_key, " + COLUMNS + ")"
                        + " SELECT :scope, :operation, :key, 'I', :fp, :token, 1, clock.ms + :leaseMs,"
                        + " clock.ms + :lifeMs, NULL, clock.ms, NULL FROM clock LEFT JOIN prev ON TRUE"
                        + " WHERE NOT EXISTS (SELECT 1 FROM settled)"
                        + " ON CONFLICT (scope, operation, idem_key) DO UPDATE SET"
                        + " state = 'I', fingerprint = EXCLUDED.fingerprint, token = EXCLUDED.token,"
                        + " attempt = CASE WHEN r.expires_at <= EXCLUDED.created_at THEN 1 ELSE r.attempt + 1 END,"
                        + " lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at, outcome = NULL,"
                        + " created_at = CASE WHEN r.expires_at <= EXCLUDED.created_at THEN EXCLUDED.created_at"
                        + " ELSE COALESCE(r.created_at, EXCLUDED.created_at) END,"
                        + " journal = CASE WHEN r.expires_at > EXCLUDED.created_at"
                        + " AND r.fingerprint = EXCLUDED.fingerprint THEN r.journal END"
                        + " WHERE r.expires_at <= EXCLUDED.created_at OR r.state = 'R'"
                        + " OR (r.state = 'I' AND r.lease_until <= EXCLUDED.created_at"
                        + " AND r.fingerprint = EXCLUDED.fingerprint)"
                        + " RETURNING r.attempt, r.lease_until, r.expires_at, r.created_at, r.journal)"
                        + " SELECT clock.ms AS now_ms, claimed.attempt AS new_attempt,"
                        + " claimed.lease_until AS new_lease_until, claimed.expires_at AS new_expires_at,"
                        + " claimed.created_at AS new_created_at, claimed.journal AS new_journal,"
                        + " prev.state, prev.fingerprint, prev.token, prev.attempt, prev.lease_until,"
                        + " prev.expires_at, CASE WHEN claimed.attempt IS NULL THEN prev.outcome END AS outcome,"
                        + " prev.created_at, prev.journal"
                        + " FROM clock LEFT JOIN claimed ON TRUE"
                        + " LEFT JOIN (SELECT * FROM settled UNION ALL SELECT * FROM prev) prev ON TRUE"
                : mysql
                        ? "CALL " + table + "_claim_v3(:scope, :operation, :key, :fp, :token, :leaseMs, :lifeMs, :"
                                + CLOCK + ")"
                        : null;
        lockRow = "SELECT " + now + " AS now_ms, " + COLUMNS + " FROM " + table + " WHERE " + PK + " FOR UPDATE";
        selectNow = "SELECT " + now + " AS now_ms";
        takeRow = "UPDATE " + table + " SET fingerprint = :fp, token = :token, attempt = :attempt,"
                + " lease_until = :leaseUntil, expires_at = :expiresAt, outcome = NULL, created_at = :createdAt,"
                + " journal = :journal, state = 'I'"
                + " WHERE " + PK + " AND (expires_at <= :now OR state = 'R'"
                + " OR (state = 'I' AND lease_until <= :now AND fingerprint = :fp))";
        insertRow = "INSERT INTO " + table + " (scope, operation, idem_key, " + COLUMNS + ")"
                + " VALUES (:scope, :operation, :key, 'I', :fp, :token, 1, :leaseUntil, :expiresAt, NULL, :now, NULL)";
        // MySQL evaluates SET assignments left to right on the updated row, so state goes last.
        complete = pg
                ? "UPDATE " + table + " SET outcome = CASE WHEN state = 'I' THEN :outcome ELSE outcome END,"
                        + " expires_at = CASE WHEN state = 'I' THEN c.ms + :ttlMs ELSE expires_at END,"
                        + " lease_until = NULL, journal = NULL, state = 'C' FROM (SELECT " + now + " AS ms) c"
                        + " WHERE " + PK + " AND token = :token AND state IN ('I', 'C') AND expires_at > c.ms"
                : "UPDATE " + table + " SET outcome = CASE WHEN state = 'I' THEN :outcome ELSE outcome END,"
                        + " expires_at = CASE WHEN state = 'I' THEN " + now + " + :ttlMs ELSE expires_at END,"
                        + " lease_until = NULL, journal = NULL, state = 'C'"
                        + " WHERE " + PK + " AND token = :token AND state IN ('I', 'C') AND expires_at > " + now;
        currentRow = "SELECT state, token, journal FROM " + table + " WHERE " + PK + " AND expires_at > " + now;
        // A repeated release by the same token matches again, so a release retried after a lost reply is acknowledged.
        release = "UPDATE " + table + " SET lease_until = NULL, state = 'R'"
                + " WHERE " + PK + " AND token = :token AND state IN ('I', 'R') AND expires_at > " + now;
        checkpoint = "UPDATE " + table + " SET journal = :journal"
                + " WHERE " + PK + " AND token = :token AND state = 'I' AND expires_at > " + now;
        extend = pg
                ? "UPDATE " + table + " SET lease_until = c.ms + :leaseMs,"
                        + " expires_at = GREATEST(expires_at, c.ms + :leaseMs) FROM (SELECT " + now + " AS ms) c"
                        + " WHERE " + PK + " AND token = :token AND state = 'I' AND expires_at > c.ms"
                        + " RETURNING lease_until"
                : mysql
                        ? "CALL " + table + "_extend_v2(:scope, :operation, :key, :token, :leaseMs, :" + CLOCK + ")"
                        : null;
        extendTo = "UPDATE " + table + " SET expires_at = GREATEST(expires_at, :deadline), lease_until = :deadline"
                + " WHERE " + PK + " AND token = :token AND state = 'I' AND expires_at > :now";
        find = "SELECT c.ms AS now_ms, " + COLUMNS + " FROM (SELECT " + now + " AS ms) c JOIN " + table
                + " t ON t.scope = :scope AND t.operation = :operation AND t.idem_key = :key AND t.expires_at > c.ms";
        switch (dialect) {
            case POSTGRESQL:
                // SKIP LOCKED: rows a claim is rewriting right now are left for the next batch
                // instead of making the purge wait; the target re-check keeps a row claimed meanwhile.
                purge = "WITH c AS (SELECT " + now + " AS ms), victims AS (SELECT t.scope, t.operation, t.idem_key"
                        + " FROM " + table + " t, c WHERE t.expires_at <= c.ms ORDER BY t.expires_at"
                        + " LIMIT :limit FOR UPDATE OF t SKIP LOCKED)"
                        + " DELETE FROM " + table + " d USING victims v, c WHERE d.scope = v.scope"
                        + " AND d.operation = v.operation AND d.idem_key = v.idem_key AND d.expires_at <= c.ms";
                break;
            case MYSQL:
                purge = "DELETE FROM " + table + " WHERE expires_at <= " + now + " ORDER BY expires_at LIMIT :limit";
                break;
            default:
                purge = "DELETE FROM " + table + " WHERE expires_at <= " + now + " FETCH FIRST :limit ROWS ONLY";
                break;
        }
    }
}
