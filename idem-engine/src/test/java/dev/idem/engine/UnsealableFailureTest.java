package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.protection.KeyProvider;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A final failure that cannot be encrypted (the key provider fails after the engine was built)
 * is not lost and not stored in clear: the "not stored" marker takes its place, naming the
 * failure's code but not the provider's message, so the work never runs again and every retry
 * gets the same error.
 */
class UnsealableFailureTest {
    private static final String ARN = "arn:aws:kms:eu-west-1:123456789012:key/5f1c9a2e";

    @Test
    void aFinalFailureThatCannotBeEncryptedIsReplacedByTheMarker() {
        AtomicInteger currents = new AtomicInteger();
        KeyVersion k1 = KeyVersion.of("k1", new byte[32]);
        KeyProvider failing = new KeyProvider() {
            @Override
            public KeyVersion current() {
                // The build asks once; every seal after that fails.
                if (currents.incrementAndGet() > 1) {
                    throw new IllegalStateException("KMS denied " + ARN);
                }
                return k1;
            }

            @Override
            public KeyVersion find(String id) {
                return k1;
            }
        };
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        IdempotencyKey key = IdempotencyKey.of("s", "refund", "k");
        AtomicInteger runs = new AtomicInteger();
        Work<String> declined = ctx -> {
            runs.incrementAndGet();
            throw new IllegalArgumentException("card declined");
        };
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).encryptOutcomes(failing)
                .failureClassifier(e -> FailureDecision.finalFailure("card_declined", "the card was declined"))
                .build()) {
            assertThatThrownBy(() -> engine.execute(key, "{}", String.class, declined))
                    .isInstanceOf(OutcomeNotStoredException.class)
                    .hasMessageContaining("card_declined");
            assertThatThrownBy(() -> engine.execute(key, "{}", String.class, declined))
                    .isInstanceOf(OutcomeNotStoredException.class);
        }
        assertThat(runs).hasValue(1);
        StoredRecord r = store.find(key).orElseThrow();
        assertThat(r.state()).isEqualTo(RecordState.COMPLETED);
        String stored = new String(r.outcome(), StandardCharsets.UTF_8);
        assertThat(stored).startsWith("U").contains("card_declined").doesNotContain(ARN).doesNotContain("KMS");
    }
}
