package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The fuzz kit's asynchronous check must reject what it exists to catch: the memory store passes
 * it, and the memory store that acknowledges completions it never writes fails it (the work of a
 * settled key runs again, or a settled key is still held when the duplicate comes).
 */
class EngineFuzzCatchesBrokenStoresTest {
    private static EngineFuzzContract kit(UnaryOperator<IdempotencyStore> mutant) {
        return new EngineFuzzContract() {
            @Override
            protected StoreFixture createFixture() {
                return MemoryFixture.wrapped(mutant);
            }
        };
    }

    private static void runAsync(EngineFuzzContract kit) throws Exception {
        kit.setUpFuzz();
        try {
            kit.asynchronousCallersMixedWithBlockingOnesKeepTheSameInvariants();
        } finally {
            kit.tearDownFuzz();
        }
    }

    @Test
    void theMemoryStoreAsItIsPassesTheAsyncFuzz() {
        assertThatCode(() -> runAsync(kit(UnaryOperator.identity()))).doesNotThrowAnyException();
    }

    /** A store that acknowledges completions it never writes: the key is claimed and run again. */
    static final class LosesCompletions extends ForwardingIdempotencyStore {
        LosesCompletions(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            return delegate().find(key).map(r -> r.fencingToken() == token).orElse(false);
        }
    }

    @Test
    void aStoreThatLosesCompletionsIsCaughtByTheAsyncFuzz() {
        assertThatThrownBy(() -> runAsync(kit(LosesCompletions::new)))
                .isInstanceOfAny(AssertionError.class, RequestInProgressException.class);
    }
}
