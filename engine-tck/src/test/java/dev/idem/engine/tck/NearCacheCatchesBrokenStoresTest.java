package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The near-cache kit must reject the caches it exists to catch, wherever the cache lives: here
 * stores that keep answers of their own (as a caching proxy or a gate in front of a database
 * would), each with one of the bugs the kit names. The memory store as it is passes every check.
 */
class NearCacheCatchesBrokenStoresTest {
    private static NearCacheContract kit(UnaryOperator<IdempotencyStore> mutant) {
        return new NearCacheContract() {
            @Override
            protected StoreFixture createFixture() {
                return MemoryFixture.wrapped(mutant);
            }
        };
    }

    private interface Check {
        void run(NearCacheContract kit) throws Exception;
    }

    private static final List<Check> CHECKS = List.of(
            NearCacheContract::aCompletedRecordIsReplayedFromTheCacheWithoutAClaim,
            NearCacheContract::aRecordInProgressIsNeverServedNorRememberedAfterItEnds,
            NearCacheContract::aRecordPastItsTtlIsNeverServedEvenWhenAnswersTakeTimeToArrive,
            NearCacheContract::aRecordIsNeverServedForAnotherScopeOrOperation,
            NearCacheContract::anotherRequestOnACachedKeyIsRefusedNotServed);

    private static void run(UnaryOperator<IdempotencyStore> mutant, Check check) throws Exception {
        NearCacheContract kit = kit(mutant);
        kit.setUpNearCache();
        try {
            check.run(kit);
        } finally {
            kit.tearDownNearCache();
        }
    }

    @Test
    void theMemoryStoreAsItIsPassesEveryCheck() {
        for (Check check : CHECKS) {
            assertThatCode(() -> run(UnaryOperator.identity(), check)).doesNotThrowAnyException();
        }
    }

    /** Answers a claim from the last answer it saw for the key, whatever its state and age. */
    static class CachingStore extends ForwardingIdempotencyStore {
        private final Map<Object, ClaimResult> seen = new ConcurrentHashMap<>();
        private final Function<IdempotencyKey, Object> identity;
        private final boolean inProgressToo;

        CachingStore(IdempotencyStore delegate, Function<IdempotencyKey, Object> identity, boolean inProgressToo) {
            super(delegate);
            this.identity = identity;
            this.inProgressToo = inProgressToo;
        }

        @Override
        public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
            ClaimResult known = seen.get(identity.apply(key));
            if (known != null) {
                return known;
            }
            ClaimResult answer = delegate().claim(key, fingerprint, token, lease, ttl);
            if (!answer.claimed()
                    && (inProgressToo || answer.record().state() == RecordState.COMPLETED)) {
                seen.put(identity.apply(key), answer);
            }
            return answer;
        }
    }

    @Test
    void aCacheOfRecordsInProgressIsCaught() {
        assertThatThrownBy(() -> run(s -> new CachingStore(s, k -> k, true),
                NearCacheContract::aRecordInProgressIsNeverServedNorRememberedAfterItEnds))
                .isInstanceOfAny(AssertionError.class, RequestInProgressException.class);
    }

    @Test
    void aCacheThatKeepsRecordsPastTheirTtlIsCaught() {
        assertThatThrownBy(() -> run(s -> new CachingStore(s, k -> k, false),
                NearCacheContract::aRecordPastItsTtlIsNeverServedEvenWhenAnswersTakeTimeToArrive))
                .isInstanceOfAny(AssertionError.class, RequestInProgressException.class);
    }

    @Test
    void aCacheThatIgnoresTheScopeIsCaught() {
        assertThatThrownBy(() -> run(s -> new CachingStore(s, k -> k.operation() + "\0" + k.key(), false),
                NearCacheContract::aRecordIsNeverServedForAnotherScopeOrOperation))
                .isInstanceOfAny(AssertionError.class, RequestInProgressException.class);
    }
}
