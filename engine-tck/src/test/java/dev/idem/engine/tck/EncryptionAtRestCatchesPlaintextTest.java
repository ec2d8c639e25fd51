package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.OutcomeUnreadableException;
import dev.idem.engine.protection.KeyProvider;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import java.util.List;
import dev.idem.store.tck.StoreFixture;
import org.junit.jupiter.api.Test;

/**
 * The at-rest kit must reject what it exists to catch: run over the memory store, its checks
 * fail against an engine that stores everything in clear (protection not applied) and against
 * one that encrypts outcomes but keeps plain fingerprints, against key providers that ignore a
 * rotation (new records under the oldest key) or forget older keys, and its control fails for a
 * raw read that does not see the record's bytes.
 */
class EncryptionAtRestCatchesPlaintextTest {

    /** The kit over the memory store with {@code protection} in place of the real one. */
    private static final class Mutant extends MemoryEncryptionAtRestTest {
        private final Protection protection;
        private final boolean blindRead;

        Mutant(Protection protection, boolean blindRead) {
            this.protection = protection;
            this.blindRead = blindRead;
        }

        @Override
        protected IdempotencyEngineBuilder protect(IdempotencyEngineBuilder builder, KeyRing keys,
                KeyRing secrets) {
            return protection.apply(builder, keys, secrets);
        }

        @Override
        protected byte[] rawRecord(IdempotencyKey key) {
            return blindRead ? "nothing to see".getBytes(java.nio.charset.StandardCharsets.US_ASCII)
                    : super.rawRecord(key);
        }

        @Override
        protected StoreFixture createFixture() {
            return MemoryFixture.create();
        }

        void run(ThrowingTest test) throws Exception {
            setUpAtRest();
            try {
                test.run(this);
            } finally {
                tearDownAtRest();
            }
        }
    }

    private interface Protection {
        IdempotencyEngineBuilder apply(IdempotencyEngineBuilder builder, KeyRing keys, KeyRing secrets);
    }

    private interface ThrowingTest {
        void run(EncryptionAtRestContract kit) throws Exception;
    }

    private static final Protection NONE = (b, keys, secrets) -> b;
    private static final Protection OUTCOMES_ONLY = (b, keys, secrets) -> b.encryptOutcomes(keys);

    @Test
    void anEngineThatStoresPlaintextFailsEveryCheck() {
        Mutant plain = new Mutant(NONE, false);
        assertThatThrownBy(() -> plain.run(
                EncryptionAtRestContract::aProtectedRecordHoldsNeitherTheRequestNorTheResponseAndReplaysTheOriginalAnswer))
                .isInstanceOf(AssertionError.class).hasMessageContaining("the response's text in the raw record");
        assertThatThrownBy(() -> plain.run(
                EncryptionAtRestContract::aProtectedJournalHoldsNoStepResultAndTheRetryResumesFromIt))
                .isInstanceOf(AssertionError.class).hasMessageContaining("in the raw record");
        assertThatThrownBy(() -> plain.run(
                EncryptionAtRestContract::afterARotationOldRecordsReplayAndNewOnesUseTheNewKeyId))
                .isInstanceOf(AssertionError.class).hasMessageContaining("new key id");
        assertThatThrownBy(() -> plain.run(EncryptionAtRestContract::anOutcomeCopiedToAnotherRecordDoesNotDecrypt))
                .isInstanceOf(AssertionError.class);
    }

    @Test
    void plainFingerprintsBesideEncryptedOutcomesAreCaught() {
        Mutant half = new Mutant(OUTCOMES_ONLY, false);
        assertThatThrownBy(() -> half.run(
                EncryptionAtRestContract::aProtectedRecordHoldsNeitherTheRequestNorTheResponseAndReplaysTheOriginalAnswer))
                .isInstanceOf(AssertionError.class).hasMessageContaining("plain SHA-256 fingerprint");
    }

    /** Encrypts new records under the ring's oldest key, as if the rotation had not been applied. */
    private static KeyProvider ignoringRotation(KeyRing ring) {
        List<String> ids = ring.ids();
        KeyVersion oldest = ring.find(ids.get(ids.size() - 1));
        return new KeyProvider() {
            @Override
            public KeyVersion current() {
                return oldest;
            }

            @Override
            public KeyVersion find(String id) {
                return ring.find(id);
            }
        };
    }

    /** Reads only what the current key wrote: older records are lost at the first rotation. */
    private static KeyProvider forgettingOlderKeys(KeyRing ring) {
        return new KeyProvider() {
            @Override
            public KeyVersion current() {
                return ring.current();
            }

            @Override
            public KeyVersion find(String id) {
                return ring.current().id().equals(id) ? ring.current() : null;
            }
        };
    }

    @Test
    void aRotationThatKeepsWritingUnderTheOldKeyIsCaught() {
        Mutant stale = new Mutant((b, keys, secrets) -> b.encryptOutcomes(ignoringRotation(keys))
                .keyedFingerprints(secrets), false);
        assertThatThrownBy(() -> stale.run(
                EncryptionAtRestContract::afterARotationOldRecordsReplayAndNewOnesUseTheNewKeyId))
                .isInstanceOf(AssertionError.class).hasMessageContaining("new key id");
    }

    @Test
    void aRotationThatLosesTheOlderRecordsIsCaught() {
        Mutant forgetful = new Mutant((b, keys, secrets) -> b.encryptOutcomes(forgettingOlderKeys(keys))
                .keyedFingerprints(secrets), false);
        assertThatThrownBy(() -> forgetful.run(
                EncryptionAtRestContract::afterARotationOldRecordsReplayAndNewOnesUseTheNewKeyId))
                .isInstanceOf(OutcomeUnreadableException.class);
    }

    @Test
    void aRawReadThatMissesTheRecordFailsTheControl() {
        Mutant blind = new Mutant((b, keys, secrets) -> b.encryptOutcomes(keys).keyedFingerprints(secrets), true);
        assertThatThrownBy(() -> blind.run(
                EncryptionAtRestContract::withNothingProtectedTheRawReadShowsTheResponseTheStepResultAndTheFingerprint))
                .isInstanceOf(AssertionError.class).hasMessageContaining("is the outcome part of rawRecord?");
    }
}
