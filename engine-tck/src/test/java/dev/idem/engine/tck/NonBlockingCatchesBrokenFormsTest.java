package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.StoreFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The engine kit's non-blocking suite alone must reject the broken non-blocking forms the store
 * kit's {@code NonBlockingStoreContract} rejects, so an adapter that runs only the engine kit
 * cannot ship them: a form that waits for the store on its caller's thread, one whose complete
 * accepts any token once a lease has lapsed, and one that keeps records of its own. Each is the
 * memory store behind {@link NonBlockingMemory} with one bug; the correct form passes.
 */
class NonBlockingCatchesBrokenFormsTest {

    /** The form runs the blocking call on the caller's thread and returns the stage completed. */
    static final class OnTheCallersThread extends NonBlockingMemory {
        OnTheCallersThread(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        <T> CompletionStage<T> answer(Supplier<T> call) {
            return CompletableFuture.completedFuture(call.get());
        }
    }

    /** The form's complete accepts any token once the record's lease has lapsed (the blocking form is right). */
    static final class UnfencedComplete extends NonBlockingMemory {
        private final Clock clock;

        UnfencedComplete(IdempotencyStore delegate, Clock clock) {
            super(delegate);
            this.clock = clock;
        }

        @Override
        boolean formComplete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            if (formStore().complete(key, token, outcome, ttl)) {
                return true;
            }
            StoredRecord r = formStore().find(key).orElse(null);
            boolean lapsed = r != null && r.state() == RecordState.IN_PROGRESS
                    && !clock.instant().isBefore(r.leaseExpiresAt());
            return lapsed && formStore().complete(key, r.fencingToken(), outcome, ttl);
        }
    }

    /** The form keeps records of its own: the blocking operations never see them (the blocking form is right). */
    static final class OwnRecords extends NonBlockingMemory {
        private final IdempotencyStore own;

        OwnRecords(IdempotencyStore delegate, Clock clock) {
            super(delegate);
            IdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
            this.own = new ForwardingIdempotencyStore(memory) {
                @Override
                protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
                    gate().pass();
                    return call.get();
                }
            };
        }

        @Override
        IdempotencyStore formStore() {
            return own;
        }
    }

    /** The engine kit's non-blocking suite over the memory store behind {@code form}. */
    private static NonBlockingFaultInjectionContract kit(BiFunction<IdempotencyStore, Clock, IdempotencyStore> form) {
        return new NonBlockingFaultInjectionContract() {
            @Override
            protected StoreFixture createFixture() {
                return MemoryFixture.withClock(form);
            }
        };
    }

    private interface Check {
        void run(NonBlockingFaultInjectionContract kit) throws Exception;
    }

    private static void run(BiFunction<IdempotencyStore, Clock, IdempotencyStore> form, Check check) throws Exception {
        NonBlockingFaultInjectionContract kit = kit(form);
        kit.setUpNonBlockingFaultInjection();
        try {
            check.run(kit);
        } finally {
            kit.tearDownNonBlockingFaultInjection();
        }
    }

    @Test
    void theCorrectFormPassesTheChecks() {
        BiFunction<IdempotencyStore, Clock, IdempotencyStore> correct = (s, clock) -> new NonBlockingMemory(s);
        assertThatCode(() -> run(correct, NonBlockingFaultInjectionContract::executeAsyncReturnsWhileTheStoreHoldsItsAnswers))
                .doesNotThrowAnyException();
        assertThatCode(() -> run(correct, NonBlockingFaultInjectionContract::aStaleWorkersCompletionThroughTheFormIsRefused))
                .doesNotThrowAnyException();
        assertThatCode(() -> run(correct,
                NonBlockingFaultInjectionContract::theFormAndTheBlockingOperationsShareTheirRecords))
                .doesNotThrowAnyException();
    }

    @Test
    void aFormThatWaitsOnItsCallersThreadIsCaught() {
        assertThatThrownBy(() -> run((s, clock) -> new OnTheCallersThread(s),
                NonBlockingFaultInjectionContract::executeAsyncReturnsWhileTheStoreHoldsItsAnswers))
                .isInstanceOf(AssertionError.class).hasMessageContaining("waited for the backend's answer on the"
                        + " caller's thread");
    }

    @Test
    void aFormWhoseCompleteIsUnfencedOnALapsedLeaseIsCaught() {
        assertThatThrownBy(() -> run(UnfencedComplete::new,
                NonBlockingFaultInjectionContract::aStaleWorkersCompletionThroughTheFormIsRefused))
                .isInstanceOf(AssertionError.class).hasMessageContaining("stale worker's completion through the form");
    }

    @Test
    void aFormWithRecordsOfItsOwnIsCaught() {
        assertThatThrownBy(() -> run(OwnRecords::new,
                NonBlockingFaultInjectionContract::theFormAndTheBlockingOperationsShareTheirRecords))
                .isInstanceOf(AssertionError.class).hasMessageContaining("completed the key through the form");
    }
}
