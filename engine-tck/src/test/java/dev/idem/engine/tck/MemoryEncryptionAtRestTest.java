package dev.idem.engine.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.tck.StoreFixture;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The memory store keeps {@link StoredRecord}s in its map and {@code find} hands out the very
 * arrays it holds (no copies), so they are its raw bytes.
 */
class MemoryEncryptionAtRestTest extends EncryptionAtRestContract {
    @Override
    protected StoreFixture createFixture() {
        return MemoryFixture.create();
    }

    @Override
    protected byte[] rawRecord(IdempotencyKey key) {
        return fixture.store().find(key).map(MemoryEncryptionAtRestTest::bytes).orElse(new byte[0]);
    }

    static byte[] bytes(StoredRecord r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(r.key().toString().getBytes(StandardCharsets.UTF_8));
        out.writeBytes(r.fingerprint());
        if (r.outcome() != null) {
            out.writeBytes(r.outcome());
        }
        if (r.journal() != null) {
            out.writeBytes(r.journal());
        }
        return out.toByteArray();
    }
}
