package dev.idem.store.hybrid;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.tck.EncryptionAtRestContract;
import dev.idem.store.tck.StoreFixture;
import org.junit.jupiter.api.Tag;

/** What the hybrid store over MariaDb holds for a record, in the database and in the gate, once outcomes are protected. */
@Tag("compat") // another combination of parts: the default build runs hybrid on PostgreSQL with a Jedis gate
class MariaDbHybridEncryptionAtRestTest extends EncryptionAtRestContract {
    @Override
    protected StoreFixture createFixture() {
        return new HybridFixture(Databases.MARIADB);
    }

    @Override
    protected byte[] rawRecord(IdempotencyKey key) throws Exception {
        return RawHybridRecords.of(Databases.MARIADB, key);
    }
}
