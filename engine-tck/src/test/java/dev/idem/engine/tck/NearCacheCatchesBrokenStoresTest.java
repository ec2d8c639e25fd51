package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.time.Ticker;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.tck.BrokenNearCaches.Bug;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The near-cache kit must reject the caches it exists to catch, wherever the cache lives: stores
 * that keep answers of their own (as a caching proxy or a gate in front of a database would), and
 * engine-side caches in place of the engine's own ({@link BrokenNearCaches}), each with one of the
 * bugs the kit names. The memory store as it is, and the engine-side cache without its bug, pass
 * every check.
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
            NearCacheContract::anotherRequestOnACachedKeyIsRefusedNotServed,
            NearCacheContract::aCachedRecordDiesAtItsTtlHoweverOftenItIsRead,
            NearCacheContract::aHolderTakenOverNeverAnswersItsOwnValueFromTheCache);

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

    /** The kit with its cached engine's near cache replaced by an {@link BrokenNearCaches.EngineSideCache} with {@code bug}. */
    private static NearCacheContract withEngineCache(Bug bug) {
        return new NearCacheContract() {
            @Override
            protected StoreFixture createFixture() {
                return MemoryFixture.create();
            }

            @Override
            IdempotencyEngine cachedEngine(IdempotencyStore store, Ticker ticker) {
                return IdempotencyEngine.builder().store(new BrokenNearCaches.EngineSideCache(store, ticker,
                        fixture.ttl(), bug)).lease(fixture.lease()).ttl(fixture.ttl()).ticker(ticker).build();
            }
        };
    }

    private static void run(NearCacheContract kit, Check check) throws Exception {
        kit.setUpNearCache();
        try {
            check.run(kit);
        } finally {
            kit.tearDownNearCache();
        }
    }

    @Test
    void aCacheWhoseEntriesLiveATtlFromTheLastReadIsCaught() {
        assertThatThrownBy(() -> run(withEngineCache(Bug.SLIDING_TTL),
                NearCacheContract::aCachedRecordDiesAtItsTtlHoweverOftenItIsRead))
                .isInstanceOf(AssertionError.class).hasMessageContaining("read often before, replayed");
        // The older check reads once, after the TTL: it lets this cache through.
        assertThatCode(() -> run(withEngineCache(Bug.SLIDING_TTL),
                NearCacheContract::aRecordPastItsTtlIsNeverServedEvenWhenAnswersTakeTimeToArrive))
                .doesNotThrowAnyException();
    }

    @Test
    void aCacheThatTakesASuccessBeforeTheStoreAcknowledgedItIsCaught() {
        assertThatThrownBy(() -> run(withEngineCache(Bug.TAKEN_BEFORE_THE_ACKNOWLEDGEMENT),
                NearCacheContract::aHolderTakenOverNeverAnswersItsOwnValueFromTheCache))
                .isInstanceOf(AssertionError.class).hasMessageContaining("the store holds the taker's");
    }

    @Test
    void theCachesWithoutTheirBugPassEveryCheck() {
        for (Check check : CHECKS) {
            assertThatCode(() -> run(withEngineCache(Bug.NONE), check)).doesNotThrowAnyException();
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
