package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The hot-key load case must reject what it exists to catch: the memory store passes it; a store
 * that acknowledges lease extensions it never makes (a duplicate could take a live worker's key)
 * is caught by the lease it holds; an engine whose renewals share the async executor's queue with the waiting
 * duplicates' claims (as the engine once did) is caught at the first renewal that falls due.
 */
class HotKeyLoadCatchesBrokenStoresTest {

    @Test
    void theMemoryStoreAsItIsPasses() {
        assertThatCode(() -> HotKeyLoad.asConfigured(MemoryFixture.create()).run()).doesNotThrowAnyException();
    }

    /**
     * A blocking holder whose thread waits for a core after each renewal while the run steps on
     * (here: 50 ms of real time, in which the run takes several steps) must still keep its key: the
     * run counts each renewal from when the last one fell due. Counted from a reading taken after
     * the wait, it put the next renewal past the lease just granted, and this case failed at the
     * first step that checked it (as the memory store's run did, once in about a thousand, in CI).
     */
    @Test
    void aBlockingHolderThatWaitsForACoreAfterEachRenewalStillKeepsItsKey() {
        Runnable waitForACore = () -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        assertThatCode(() -> new HotKeyLoad(MemoryFixture.create(), (b, executor) -> executor == null ? b
                : b.asyncExecutor(executor), waitForACore).run()).doesNotThrowAnyException();
    }

    /** Answers every extension with the lease it asked for, without extending anything. */
    static final class FakesExtensions extends ForwardingIdempotencyStore {
        FakesExtensions(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public Optional<Instant> extendLease(IdempotencyKey key, long token, Duration lease) {
            return delegate().find(key).filter(r -> r.fencingToken() == token)
                    .map(r -> r.leaseExpiresAt().plus(lease));
        }
    }

    @Test
    void aStoreThatFakesLeaseExtensionsIsCaught() {
        assertThatThrownBy(() -> HotKeyLoad.asConfigured(MemoryFixture.wrapped(FakesExtensions::new)).run())
                .isInstanceOf(AssertionError.class).hasMessageContaining("answers lease extensions it does not make");
    }

    @Test
    void overTheNonBlockingFormTheMemoryStorePasses() {
        assertThatCode(() -> HotKeyLoad.overNonBlockingForm(MemoryFixture.wrapped(NonBlockingMemory::new)).run())
                .doesNotThrowAnyException();
    }

    /**
     * A client that declares more calls in flight than it has connections lets the engine's claims
     * take every connection, as an engine did that sent renewals past its lane (the work of 92 of
     * 100 hot keys ran twice over a DynamoDB client): the renewal queues behind the held claims.
     */
    @Test
    void overTheNonBlockingFormRenewalsQueuedBehindTheWaitersClaimsAreCaught() {
        assertThatThrownBy(() -> HotKeyLoad.overNonBlockingForm(MemoryFixture.wrapped(NonBlockingMemory::new), 64)
                .run()).isInstanceOf(AssertionError.class).hasMessageContaining("renewals queue behind waiters");
    }

    @Test
    void renewalsQueuedBehindTheWaitersClaimsAreCaught() {
        UnaryOperator<IdempotencyStore> asItIs = UnaryOperator.identity();
        assertThatThrownBy(() -> new HotKeyLoad(MemoryFixture.wrapped(asItIs), (b, executor) -> executor == null ? b
                : b.asyncExecutor(executor).leaseRenewalExecutor(executor)).run())
                .isInstanceOf(AssertionError.class).hasMessageContaining("renewals queue behind waiters");
    }
}
