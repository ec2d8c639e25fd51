package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.OutcomeNotStoredException;
import dev.idem.engine.Result;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@link CallerIsolationContract} rejects what it exists to catch, each a bug a peer shipped:
 * stores that free or renew the holder's record when they answer a refused duplicate, callers that
 * recompute the key from the request the work mutated or fingerprint it after the work, and stores
 * that fold a scope's case and spaces (as a case-insensitive, space-padding collation does) or
 * cache answers without the scope. The memory store and the direct caller pass every check.
 */
class CallerIsolationCatchesBrokenStoresTest {
    private interface Check {
        void run(CallerIsolationContract kit) throws Exception;
    }

    private static final List<Check> CHECKS = List.of(
            CallerIsolationContract::refusedRequestsLeaveTheStoredRecordByteForByteAsItWas,
            CallerIsolationContract::refusedRequestsLeaveTheProtectedRecordByteForByteAsItWas,
            CallerIsolationContract::workThatMutatesItsRequestChangesNeitherTheFingerprintNorWhereTheCompletionGoes,
            CallerIsolationContract::workThatMutatesItsRequestLeavesAProtectedRecordReadable,
            CallerIsolationContract::asynchronousWorkThatMutatesItsRequestKeepsItsRecord,
            CallerIsolationContract::twoScopesWithTheSameOperationAndKeyNeverSeeEachOthersRecords,
            CallerIsolationContract::twoScopesNeverSeeEachOthersProtectedRecordsNorCachedOnes,
            CallerIsolationContract::twoScopesNeverSeeEachOthersRecordsWithKeyedScopes);

    private static void run(UnaryOperator<IdempotencyStore> mutant, CallerIsolationContract.Caller caller,
            Check check) throws Exception {
        CallerIsolationContract kit = new CallerIsolationContract() {
            @Override
            protected StoreFixture createFixture() {
                return MemoryFixture.wrapped(mutant);
            }

            @Override
            protected Caller caller() {
                return caller;
            }
        };
        kit.setUpIsolation();
        try {
            check.run(kit);
        } finally {
            kit.tearDownIsolation();
        }
    }

    private static void run(UnaryOperator<IdempotencyStore> mutant, Check check) throws Exception {
        run(mutant, CallerIsolationContract.Caller.DIRECT, check);
    }

    @Test
    void theMemoryStoreAndTheDirectCallerPassEveryCheck() {
        for (Check check : CHECKS) {
            assertThatCode(() -> run(UnaryOperator.identity(), check)).doesNotThrowAnyException();
        }
    }

    // ---- refusals

    /** Answers a claim that meets a record in progress, then does {@code toHolder} to that record. */
    private static final class TouchesTheHolder extends ForwardingIdempotencyStore {
        private final boolean mismatchOnly;
        private final boolean release;

        TouchesTheHolder(IdempotencyStore delegate, boolean mismatchOnly, boolean release) {
            super(delegate);
            this.mismatchOnly = mismatchOnly;
            this.release = release;
        }

        @Override
        public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
            ClaimResult r = delegate().claim(key, fingerprint, token, lease, ttl);
            StoredRecord holder = r.record();
            if (!r.claimed() && holder.state() == RecordState.IN_PROGRESS
                    && (!mismatchOnly || !holder.hasFingerprint(fingerprint))) {
                if (release) {
                    delegate().release(key, holder.fencingToken());
                } else {
                    delegate().extendLease(key, holder.fencingToken(), lease);
                }
            }
            return r;
        }
    }

    @Test
    void aStoreThatFreesTheHoldersRecordWhenItRefusesAnotherRequestIsCaught() {
        assertThatThrownBy(() -> run(s -> new TouchesTheHolder(s, true, true),
                CallerIsolationContract::refusedRequestsLeaveTheStoredRecordByteForByteAsItWas))
                .isInstanceOf(AssertionError.class).hasMessageContaining("the record after another request (422)");
    }

    @Test
    void aStoreThatRenewsTheHoldersLeaseForEveryDuplicateIsCaught() {
        assertThatThrownBy(() -> run(s -> new TouchesTheHolder(s, false, false),
                CallerIsolationContract::refusedRequestsLeaveTheProtectedRecordByteForByteAsItWas))
                .isInstanceOf(AssertionError.class).hasMessageContaining("the record after");
    }

    // ---- mutating work

    /**
     * The peer's adapter: claims the key it derives from the request, and completes under the key
     * it derives again once the work ran, from the request the work changed.
     */
    private static final CallerIsolationContract.Caller RECOMPUTES_THE_KEY = new CallerIsolationContract.Caller() {
        @Override
        public <R, T> Result<T> call(IdempotencyEngine engine, IdempotencyStore store, String scope, R request,
                Function<R, String> id, Class<T> type, Function<R, T> work) {
            IdempotencyKey key = IdempotencyKey.of(scope, "place-order", id.apply(request));
            return engine.executeAtomically(key, request, type, (ctx, completion) -> {
                T value = work.apply(request);
                IdempotencyKey again = IdempotencyKey.of(scope, "place-order", id.apply(request));
                store.complete(again, ctx.fencingToken(), completion.encode(value), completion.ttl());
                return value;
            });
        }
    };

    /** An adapter that hands the engine the request as the work left it (the work ran first). */
    private static final CallerIsolationContract.Caller FINGERPRINTS_AFTER_THE_WORK =
            new CallerIsolationContract.Caller() {
                @Override
                public <R, T> Result<T> call(IdempotencyEngine engine, IdempotencyStore store, String scope,
                        R request, Function<R, String> id, Class<T> type, Function<R, T> work) {
                    IdempotencyKey key = IdempotencyKey.of(scope, "place-order", id.apply(request));
                    T value = work.apply(request);
                    return engine.execute(key, request, type, ctx -> value);
                }
            };

    @Test
    void aCallerThatRecomputesTheKeyFromTheMutatedRequestIsCaught() {
        assertThatThrownBy(() -> run(UnaryOperator.identity(), RECOMPUTES_THE_KEY,
                CallerIsolationContract::workThatMutatesItsRequestChangesNeitherTheFingerprintNorWhereTheCompletionGoes))
                .isInstanceOfAny(AssertionError.class, OutcomeNotStoredException.class);
    }

    @Test
    void aCallerThatFingerprintsTheMutatedRequestIsCaught() {
        assertThatThrownBy(() -> run(UnaryOperator.identity(), FINGERPRINTS_AFTER_THE_WORK,
                CallerIsolationContract::workThatMutatesItsRequestLeavesAProtectedRecordReadable))
                .isInstanceOfAny(AssertionError.class, KeyReusedException.class);
    }

    // ---- scopes

    /** Keys every record by its scope in lower case without surrounding spaces, as such a collation compares. */
    private static final class FoldsScopes extends ForwardingIdempotencyStore {
        FoldsScopes(IdempotencyStore delegate) {
            super(delegate);
        }

        private static IdempotencyKey folded(IdempotencyKey k) {
            return IdempotencyKey.of(k.scope().strip().toLowerCase(Locale.ROOT), k.operation(), k.key());
        }

        @Override
        public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
            return delegate().claim(folded(key), fingerprint, token, lease, ttl);
        }

        @Override
        public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            return delegate().complete(folded(key), token, outcome, ttl);
        }

        @Override
        public boolean release(IdempotencyKey key, long token) {
            return delegate().release(folded(key), token);
        }

        @Override
        public boolean checkpoint(IdempotencyKey key, long token, byte[] journal) {
            return delegate().checkpoint(folded(key), token, journal);
        }

        @Override
        public Optional<Instant> extendLease(IdempotencyKey key, long token, Duration lease) {
            return delegate().extendLease(folded(key), token, lease);
        }

        @Override
        public Optional<StoredRecord> find(IdempotencyKey key) {
            return delegate().find(folded(key));
        }
    }

    @Test
    void aStoreThatFoldsTheScopesCaseAndSpacesIsCaught() {
        // The scope that folds onto one in progress is answered 409 inside the holder's work.
        assertThatThrownBy(() -> run(FoldsScopes::new,
                CallerIsolationContract::twoScopesWithTheSameOperationAndKeyNeverSeeEachOthersRecords))
                .isInstanceOfAny(AssertionError.class, RequestInProgressException.class);
    }

    @Test
    void aCacheThatIgnoresTheScopeIsCaught() {
        assertThatThrownBy(() -> run(s -> new NearCacheCatchesBrokenStoresTest.CachingStore(s,
                k -> k.operation() + "\0" + k.key(), false),
                CallerIsolationContract::twoScopesWithTheSameOperationAndKeyNeverSeeEachOthersRecords))
                .isInstanceOf(AssertionError.class).hasMessageContaining("scope [");
    }
}
