package dev.idem.store.hybrid;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.tck.RawBytes;
import dev.idem.store.hybrid.internal.GateKeys;
import java.nio.charset.StandardCharsets;

/** A record's bytes in both backends: the database row (plain JDBC) and the gate's hash (Jedis). */
final class RawHybridRecords {
    private RawHybridRecords() {
    }

    static byte[] of(Databases db, IdempotencyKey key) throws Exception {
        String sql = "SELECT * FROM idem_record WHERE scope = ? AND operation = ? AND idem_key = ?";
        // MariaDB holds scope, operation and key as UTF-8 bytes in VARBINARY columns.
        Object[] parameters = db == Databases.MARIADB
                ? new Object[] {utf8(key.scope()), utf8(key.operation()), utf8(key.key())}
                : new Object[] {key.scope(), key.operation(), key.key()};
        return RawBytes.concat(RawBytes.ofQuery(db.dataSource(), sql, parameters), RawBytes.ofEntries(
                GateRedis.Shared.A.hgetAll(new GateKeys(HybridIdempotencyStore.DEFAULT_KEY_PREFIX).redisKey(key))));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
