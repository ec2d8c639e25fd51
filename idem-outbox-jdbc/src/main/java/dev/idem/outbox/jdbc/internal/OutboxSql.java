package dev.idem.outbox.jdbc.internal;

import dev.idem.store.jdbc.JdbcDialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The outbox's SQL for one dialect and table, and its shipped DDL. */
public final class OutboxSql {
    /** The table name the shipped scripts use. */
    public static final String DEFAULT_TABLE = "idem_outbox";
    /** The script every dialect folder holds. */
    public static final String SCRIPT = "V1__create_idem_outbox.sql";
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,47}");

    /** Inserts one pending message (event id, topic, key, payload, available at, created at). */
    public final String insert;
    /** The oldest due pending rows, locked; parameters: now, limit. */
    public final String claim;
    /** Like {@link #claim}, but only rows with no older pending row of the same aggregate key. */
    public final String claimOrdered;
    /** Marks a row sent; parameters: sent at, id. */
    public final String markSent;
    /** Schedules a retry; parameters: available at, error, id. */
    public final String markRetry;
    /** Marks a row dead, its dead letter not yet handed to the callback (state F); parameters: error, id. */
    public final String markDead;
    /** Rows dead whose dead letter was not handed over yet, past an id, locked; parameters: after, limit. */
    public final String claimDead;
    /**
     * The state a batch wrote, of the rows not locked by another transaction; list parameter
     * {@code ids}; columns id, state, attempts, sent_at, available_at.
     */
    public final String settle;
    /** Marks a dead row's dead letter handed over (state F to D); parameter: id. */
    public final String markReported;
    /** Deletes sent rows older than a cutoff; parameters: cutoff, limit. */
    public final String purge;
    /** Counts pending and dead rows and the oldest pending creation time; columns state, n, oldest. */
    public final String backlog;
    /** Whether the claim skips rows other relays hold instead of waiting for them. */
    public final boolean skipLocked;

    /**
     * The SQL of {@code dialect} for {@code table}.
     *
     * @param dialect the database
     * @param table the (possibly schema-qualified, already validated) table
     */
    public OutboxSql(JdbcDialect dialect, String table) {
        insert = "INSERT INTO " + table + " (event_id, topic, aggregate_key, payload, state, attempts, available_at,"
                + " created_at) VALUES (?, ?, ?, ?, 'P', 0, ?, ?)";
        String select = "SELECT o.id, o.event_id, o.topic, o.aggregate_key, o.payload, o.attempts, o.created_at"
                + " FROM " + table + " o WHERE o.state = 'P' AND o.available_at <= :now";
        String ordered = " AND (o.aggregate_key IS NULL OR NOT EXISTS (SELECT 1 FROM " + table + " p"
                + " WHERE p.aggregate_key = o.aggregate_key AND p.state = 'P' AND p.id < o.id))";
        // Every supported dialect accepts SKIP LOCKED, so the claim never waits for another relay.
        String lock = " ORDER BY o.id LIMIT :limit FOR UPDATE SKIP LOCKED";
        skipLocked = true;
        claim = select + lock;
        claimOrdered = select + ordered + lock;
        markSent = "UPDATE " + table + " SET state = 'S', sent_at = :now, attempts = attempts + 1, last_error = NULL"
                + " WHERE id = :id";
        markRetry = "UPDATE " + table + " SET available_at = :availableAt, attempts = attempts + 1,"
                + " last_error = :error WHERE id = :id";
        backlog = "SELECT state, COUNT(*) AS n, MIN(created_at) AS oldest FROM " + table
                + " WHERE state IN ('P', 'F', 'D') GROUP BY state";
        markDead = "UPDATE " + table + " SET state = 'F', attempts = attempts + 1, last_error = :error WHERE id = :id";
        claimDead = "SELECT o.id, o.event_id, o.topic, o.aggregate_key, o.payload, o.attempts, o.created_at FROM "
                + table + " o WHERE o.state = 'F' AND o.id > :after ORDER BY o.id LIMIT :limit FOR UPDATE SKIP LOCKED";
        settle = "SELECT id, state, attempts, sent_at, available_at FROM " + table
                + " WHERE id IN (<ids>) FOR UPDATE SKIP LOCKED";
        markReported = "UPDATE " + table + " SET state = 'D' WHERE id = :id AND state = 'F'";
        switch (dialect) {
            case MYSQL:
                // MySQL cannot select from the table it deletes from; it has DELETE ... LIMIT instead.
                purge = "DELETE FROM " + table + " WHERE state = 'S' AND sent_at < :cutoff ORDER BY id LIMIT :limit";
                break;
            case POSTGRESQL:
                purge = "DELETE FROM " + table + " WHERE id IN (SELECT id FROM " + table
                        + " WHERE state = 'S' AND sent_at < :cutoff ORDER BY id LIMIT :limit FOR UPDATE SKIP LOCKED)";
                break;
            default:
                purge = "DELETE FROM " + table + " WHERE id IN (SELECT id FROM " + table
                        + " WHERE state = 'S' AND sent_at < :cutoff ORDER BY id LIMIT :limit)";
                break;
        }
    }

    /**
     * Checks a table or schema name: letters, digits and underscores, not starting with a
     * digit, 1..48 characters, so it can be spliced into SQL.
     *
     * @param what "table" or "schema", for the message
     * @param name the name
     * @return the name
     * @throws IllegalArgumentException naming the value otherwise
     */
    public static String checkIdentifier(String what, String name) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " name '" + name
                    + "' is invalid: use 1..48 letters, digits or underscores, not starting with a digit");
        }
        return name;
    }

    /**
     * The classpath location of the dialect's DDL script.
     *
     * @param dialect the database
     * @return the resource path
     */
    public static String resource(JdbcDialect dialect) {
        return "dev/idem/outbox/jdbc/schema/" + dialect.resourceName() + "/" + SCRIPT;
    }

    /**
     * The DDL statements of {@code dialect} for {@code table} in {@code schema} (nullable).
     *
     * @param dialect the database
     * @param schema the schema, or null
     * @param table the table
     * @return the statements, in order
     */
    public static List<String> ddl(JdbcDialect dialect, String schema, String table) {
        String qualified = schema == null ? table : schema + "." + table;
        String text = read(resource(dialect)).replaceAll("(?m)^\\s*--.*$", "")
                .replaceAll("\\b" + DEFAULT_TABLE + "_", Matcher.quoteReplacement(table) + "_")
                .replaceAll("\\b" + DEFAULT_TABLE + "\\b", Matcher.quoteReplacement(qualified));
        List<String> out = new ArrayList<>();
        for (String s : text.split(";")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }

    private static String read(String resource) {
        try (InputStream in = OutboxSql.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("schema script " + resource + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read schema script " + resource, e);
        }
    }
}
