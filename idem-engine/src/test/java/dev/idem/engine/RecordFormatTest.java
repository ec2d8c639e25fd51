package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.protection.KeyRing;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordFormat} writes exactly what an engine with the same settings stores: the same
 * fingerprint, the same outcome bytes, the same encryption, and reads back what it wrote.
 */
class RecordFormatTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("tenant", "charge", "k-1");
    private static final Map<String, Object> REQUEST = Map.of("amount", 1.50, "currency", "EUR");

    /** A result type as users write them. */
    public record Receipt(String id, int cents) {
    }

    @Test
    void itsFieldsAreTheOnesAnEngineStores() {
        ObjectMapper mapper = new ObjectMapper();
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        Receipt receipt = new Receipt("ch_1", 150);
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).objectMapper(mapper).build()) {
            engine.execute(KEY, REQUEST, Receipt.class, ctx -> receipt);
        }
        StoredRecord record = store.find(KEY).orElseThrow();

        RecordFormat format = RecordFormat.of(mapper);
        assertThat(format.fingerprint("charge", REQUEST)).isEqualTo(record.fingerprint());
        assertThat(RecordFormat.of(JsonCodec.jackson2(mapper)).fingerprint("charge", REQUEST))
                .isEqualTo(record.fingerprint());
        assertThat(format.fingerprint("refund", REQUEST)).isNotEqualTo(record.fingerprint());

        byte[] outcome = format.encodeSuccess(receipt);
        assertThat(outcome).isEqualTo(record.outcome());
        assertThat(format.decodeSuccess(record.outcome(), format.type(Receipt.class))).isEqualTo(receipt);
        // Unencrypted, sealing and opening leave the outcome as it is.
        assertThat(format.sealOutcome(KEY, record.fingerprint(), outcome)).isEqualTo(outcome);
        assertThat(format.withOutcomeKeys(null).sealOutcome(KEY, record.fingerprint(), outcome)).isEqualTo(outcome);
        assertThat(format.openOutcome(KEY, record.fingerprint(), outcome)).isEqualTo(outcome);
    }

    @Test
    void withOutcomeKeysItSealsAndOpensAsAnEncryptingEngineDoes() {
        ObjectMapper mapper = new ObjectMapper();
        KeyRing keys = KeyRing.of(ProtectionFixture.secretKey("k1", 7));
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        Receipt receipt = new Receipt("ch_2", 990);
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).objectMapper(mapper)
                .encryptOutcomes(keys).build()) {
            engine.execute(KEY, REQUEST, Receipt.class, ctx -> receipt);
        }
        StoredRecord record = store.find(KEY).orElseThrow();
        RecordFormat format = RecordFormat.of(mapper).withOutcomeKeys(keys);
        byte[] plain = format.encodeSuccess(receipt);

        assertThat(record.outcome()).isNotEqualTo(plain);
        assertThat(format.openOutcome(KEY, record.fingerprint(), record.outcome())).isEqualTo(plain);
        byte[] sealed = format.sealOutcome(KEY, record.fingerprint(), plain);
        assertThat(sealed).isNotEqualTo(plain);
        assertThat(ProtectionFixture.contains(sealed, "ch_2")).isFalse();
        assertThat(format.openOutcome(KEY, record.fingerprint(), sealed)).isEqualTo(plain);
    }
}
