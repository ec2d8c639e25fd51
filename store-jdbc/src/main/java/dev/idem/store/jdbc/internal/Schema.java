package dev.idem.store.jdbc.internal;

import dev.idem.store.jdbc.JdbcDialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Loads the shipped DDL and names the table and index after the configured table. */
public final class Schema {
    /** The table name the shipped scripts use. */
    public static final String DEFAULT_TABLE = "idem_record";
    /** The script every dialect folder holds. */
    public static final String SCRIPT = "V1__create_idem_record.sql";
    /** MySQL/MariaDB only: the claim and lease-extension procedures, applied after {@link #SCRIPT}. */
    public static final String MYSQL_PROCEDURES = "V2__create_idem_record_procedures.sql";
    /** PostgreSQL and H2: creation time and step journal columns (SPI v2), applied after {@link #SCRIPT}. */
    public static final String STEPS = "V2__idem_record_steps.sql";
    /** MySQL/MariaDB: creation time, step journal and the v2 procedures, applied after {@link #MYSQL_PROCEDURES}. */
    public static final String MYSQL_STEPS = "V3__idem_record_steps.sql";
    /** MySQL/MariaDB: the v3 claim procedure (a lock-free answer for live records), applied after {@link #MYSQL_STEPS}. */
    public static final String MYSQL_CLAIM_V3 = "V4__idem_record_claim_v3.sql";

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern PROCEDURE_END = Pattern.compile("(?m)^END;[ \\t]*$");
    private static final Pattern PROCEDURE_HEAD = Pattern.compile("CREATE PROCEDURE ([A-Za-z0-9_.]+)\\(");
    private static final Pattern ADD_COLUMN = Pattern.compile("ALTER TABLE ([A-Za-z0-9_.]+) ADD COLUMN (?!IF )([A-Za-z0-9_]+) ");
    private static final int MAX_TABLE = 48;
    private static final int MAX_SCHEMA = 63;

    private Schema() {
    }

    /**
     * Checks a table or schema name: letters, digits and underscores, not starting with a
     * digit, so it can be spliced into SQL without quoting or injection.
     *
     * @throws IllegalArgumentException naming the value otherwise
     */
    public static String checkIdentifier(String what, String name) {
        if (name == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        int max = what.equals("table") ? MAX_TABLE : MAX_SCHEMA;
        if (name.isEmpty() || name.length() > max || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " name '" + name + "' is invalid: use 1.." + max
                    + " letters, digits or underscores, not starting with a digit");
        }
        return name;
    }

    /** The classpath location of a dialect's first script. */
    public static String resource(JdbcDialect dialect) {
        return resource(dialect, SCRIPT);
    }

    private static String resource(JdbcDialect dialect, String script) {
        return "dev/idem/store/jdbc/schema/" + dialect.resourceName() + "/" + script;
    }

    /** The scripts of {@code dialect}, in the order they apply. */
    public static List<String> scripts(JdbcDialect dialect) {
        return dialect == JdbcDialect.MYSQL ? List.of(SCRIPT, MYSQL_PROCEDURES, MYSQL_STEPS, MYSQL_CLAIM_V3) : List.of(SCRIPT, STEPS);
    }

    /**
     * The DDL statements of {@code dialect}, for {@code table} in {@code schema} (nullable),
     * in order. A {@code CREATE PROCEDURE} is one statement, from its head to the
     * {@code END;} that starts a line.
     */
    public static List<String> statements(JdbcDialect dialect, String schema, String table) {
        String qualified = schema == null ? table : schema + "." + table;
        List<String> out = new ArrayList<>();
        for (String script : scripts(dialect)) {
            String text = read(resource(dialect, script))
                    .replaceAll("(?m)^\\s*--.*$", "")
                    .replace(DEFAULT_TABLE + "_expires_idx", table + "_expires_idx")
                    .replaceAll("\\b" + DEFAULT_TABLE + "_((?:claim|extend)(?:_v[0-9]+)?)\\b",
                            Matcher.quoteReplacement(qualified) + "_$1")
                    .replaceAll("\\b" + DEFAULT_TABLE + "\\b", Matcher.quoteReplacement(qualified));
            split(text, out);
        }
        return out;
    }

    // A CREATE PROCEDURE runs to the END; that starts a line; any other statement to its ';'.
    private static void split(String text, List<String> out) {
        String rest = text.strip();
        while (!rest.isEmpty()) {
            int end;
            int length;
            if (rest.startsWith("CREATE PROCEDURE")) {
                Matcher m = PROCEDURE_END.matcher(rest);
                if (!m.find()) {
                    throw new IllegalStateException("procedure without an END; line: " + rest);
                }
                end = m.start();
                length = m.end();
                out.add(rest.substring(0, end).trim() + "\nEND");
            } else {
                end = rest.indexOf(';');
                length = end < 0 ? rest.length() : end + 1;
                out.add(rest.substring(0, end < 0 ? rest.length() : end).trim());
            }
            rest = rest.substring(length).strip();
        }
    }

    /**
     * The table and column of an {@code ALTER TABLE ... ADD COLUMN} without {@code IF NOT
     * EXISTS} (MySQL has none), as written, or null for any other statement.
     */
    public static String[] addedColumn(String statement) {
        Matcher m = ADD_COLUMN.matcher(statement);
        return m.lookingAt() ? new String[] {m.group(1), m.group(2)} : null;
    }

    /**
     * The name of the routine a {@code CREATE PROCEDURE} statement creates, as written
     * (possibly schema-qualified), or null for any other statement.
     */
    public static String procedureName(String statement) {
        Matcher m = PROCEDURE_HEAD.matcher(statement);
        return m.lookingAt() ? m.group(1) : null;
    }

    private static String read(String resource) {
        ClassLoader loader = Schema.class.getClassLoader();
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("schema script " + resource + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read schema script " + resource, e);
        }
    }
}
