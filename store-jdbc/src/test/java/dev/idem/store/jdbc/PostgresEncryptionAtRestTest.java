package dev.idem.store.jdbc;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.tck.EncryptionAtRestContract;
import dev.idem.store.tck.StoreFixture;

class PostgresEncryptionAtRestTest extends EncryptionAtRestContract {
    @Override
    protected StoreFixture createFixture() {
        return new DbFixture(Backend.POSTGRES);
    }

    @Override
    protected byte[] rawRecord(IdempotencyKey key) throws Exception {
        return RawRows.of(Backend.POSTGRES, key);
    }
}
