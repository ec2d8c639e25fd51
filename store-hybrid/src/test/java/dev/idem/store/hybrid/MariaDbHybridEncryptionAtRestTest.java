package dev.idem.store.hybrid;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.tck.EncryptionAtRestContract;
import dev.idem.store.tck.StoreFixture;

/** What the hybrid store over MariaDb holds for a record, in the database and in the gate, once outcomes are protected. */
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
