package dev.idem.engine.tck;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Blob;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Helpers for {@link EncryptionAtRestContract#rawRecord}: a record's bytes as the backend's
 * own client returns them, concatenated.
 */
public final class RawBytes {
    private RawBytes() {
    }

    /**
     * Every column of every row {@code sql} selects, through plain JDBC: binary columns as
     * their bytes, others as their text in UTF-8.
     *
     * @param dataSource the database
     * @param sql a query, for example {@code SELECT * FROM idem_record WHERE scope = ? AND operation = ? AND idem_key = ?}
     * @param parameters its parameters, bound with {@code setObject}
     * @return the bytes
     * @throws SQLException if the query fails
     */
    public static byte[] ofQuery(DataSource dataSource, String sql, Object... parameters) throws SQLException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    for (int i = 1; i <= columns; i++) {
                        Object value = rs.getObject(i);
                        if (value instanceof Blob blob) {
                            value = blob.getBytes(1, (int) blob.length());
                        }
                        if (value instanceof byte[] bytes) {
                            out.writeBytes(bytes);
                        } else if (value != null) {
                            out.writeBytes(String.valueOf(value).getBytes(StandardCharsets.UTF_8));
                        }
                    }
                }
            }
        }
        return out.toByteArray();
    }

    /**
     * A hash's or item's names and values, each as its bytes.
     *
     * @param entries the entries, as a client returns them
     * @return the bytes
     */
    public static byte[] ofEntries(Map<byte[], byte[]> entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        entries.forEach((name, value) -> {
            out.writeBytes(name);
            out.writeBytes(value);
        });
        return out.toByteArray();
    }

    /**
     * Parts concatenated.
     *
     * @param parts the parts
     * @return the bytes
     */
    public static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
