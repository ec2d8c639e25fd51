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

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
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

    /** The classpath location of a dialect's script. */
    public static String resource(JdbcDialect dialect) {
        return "dev/idem/store/jdbc/schema/" + dialect.resourceName() + "/" + SCRIPT;
    }

    /** The DDL statements of {@code dialect}, for {@code table} in {@code schema} (nullable). */
    public static List<String> statements(JdbcDialect dialect, String schema, String table) {
        String qualified = schema == null ? table : schema + "." + table;
        String text = read(resource(dialect))
                .replaceAll("(?m)^\\s*--.*$", "")
                .replace(DEFAULT_TABLE + "_expires_idx", table + "_expires_idx")
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
