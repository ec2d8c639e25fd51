package dev.idem.store.jdbc;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.tck.RawBytes;
import java.nio.charset.StandardCharsets;

/** A record's row as plain JDBC reads it from the default table, for the at-rest kit. */
final class RawRows {
    private RawRows() {
    }

    static byte[] of(Backend backend, IdempotencyKey key) throws Exception {
        String sql = "SELECT * FROM idem_record WHERE scope = ? AND operation = ? AND idem_key = ?";
        if (backend == Backend.MARIADB) {
            // Scope, operation and key are UTF-8 bytes in VARBINARY columns there.
            return RawBytes.ofQuery(backend.dataSource(), sql, utf8(key.scope()), utf8(key.operation()),
                    utf8(key.key()));
        }
        return RawBytes.ofQuery(backend.dataSource(), sql, key.scope(), key.operation(), key.key());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
