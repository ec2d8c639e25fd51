package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.tck.SealingStore.Flaw;
import org.junit.jupiter.api.Test;

/**
 * The at-rest kit must reject engines whose encryption is wrong in one place: each is an engine
 * that encrypts nothing itself behind a {@link SealingStore} (its protection done in front of its
 * store), with one flaw. The sealing without a flaw passes the checks of the scope, the nonces and
 * the final failure, and fails only the atomic step's (the journal an atomic step saves itself goes
 * past it); with a flaw it fails that flaw's check as well.
 */
class EncryptionAtRestCatchesBrokenSealingTest {

    /** The kit over the memory store, its engines sealing through a {@link SealingStore} with {@code flaw}. */
    private static final class Sealed extends MemoryEncryptionAtRestTest {
        private final Flaw flaw;
        private SealingStore last;

        Sealed(Flaw flaw) {
            this.flaw = flaw;
        }

        @Override
        protected IdempotencyEngineBuilder engineBuilder(IdempotencyStore store) {
            last = new SealingStore(store, flaw);
            return IdempotencyEngine.builder().store(last).lease(fixture.lease()).ttl(fixture.ttl());
        }

        @Override
        protected IdempotencyEngineBuilder protect(IdempotencyEngineBuilder builder, KeyRing keys, KeyRing secrets) {
            last.sealUnder(keys);
            return builder.keyedFingerprints(secrets);
        }

        void run(Check test) throws Exception {
            setUpAtRest();
            try {
                test.run(this);
            } finally {
                tearDownAtRest();
            }
        }
    }

    private interface Check {
        void run(EncryptionAtRestContract kit) throws Exception;
    }

    @Test
    void theSealingWithoutAFlawPassesTheChecksOfTheScopeTheNoncesAndTheFailure() {
        for (Check check : java.util.List.<Check>of(
                EncryptionAtRestContract::aSealedRecordCopiedToAnotherScopeDoesNotOpen,
                EncryptionAtRestContract::everyRewriteOfARecordIsSealedUnderANonceOfItsOwn,
                EncryptionAtRestContract::aFinalFailuresCodeAndDetailAreEncrypted,
                EncryptionAtRestContract::aProtectedRecordHoldsNeitherTheRequestNorTheResponseAndReplaysTheOriginalAnswer,
                EncryptionAtRestContract::anOutcomeCopiedToAnotherRecordDoesNotDecrypt)) {
            assertThatCode(() -> new Sealed(Flaw.NONE).run(check)).doesNotThrowAnyException();
        }
    }

    @Test
    void anAtomicStepsJournalSavedInTheClearIsCaught() {
        assertThatThrownBy(() -> new Sealed(Flaw.NONE).run(EncryptionAtRestContract::anAtomicStepsJournalIsEncrypted))
                .isInstanceOf(AssertionError.class).hasMessageContaining("the atomic step's result in the raw record");
    }

    @Test
    void associatedDataThatDoesNotBindTheScopeIsCaught() {
        assertThatThrownBy(() -> new Sealed(Flaw.SCOPE_NOT_BOUND)
                .run(EncryptionAtRestContract::aSealedRecordCopiedToAnotherScopeDoesNotOpen))
                .isInstanceOf(AssertionError.class).hasMessageContaining("under tenant B").hasMessageContaining("was not refused");
        // The older check copies within one scope: it lets this flaw through.
        assertThatCode(() -> new Sealed(Flaw.SCOPE_NOT_BOUND)
                .run(EncryptionAtRestContract::anOutcomeCopiedToAnotherRecordDoesNotDecrypt)).doesNotThrowAnyException();
    }

    @Test
    void aNonceDerivedFromTheRecordIsCaught() {
        assertThatThrownBy(() -> new Sealed(Flaw.NONCE_FROM_THE_RECORD)
                .run(EncryptionAtRestContract::everyRewriteOfARecordIsSealedUnderANonceOfItsOwn))
                .isInstanceOf(AssertionError.class).hasMessageContaining("AES-GCM nonce and data key used twice");
    }

    @Test
    void aFinalFailureStoredInTheClearIsCaught() {
        assertThatThrownBy(() -> new Sealed(Flaw.FAILURES_IN_CLEAR)
                .run(EncryptionAtRestContract::aFinalFailuresCodeAndDetailAreEncrypted))
                .isInstanceOf(AssertionError.class).hasMessageContaining("the final failure's code in the raw record");
    }
}
