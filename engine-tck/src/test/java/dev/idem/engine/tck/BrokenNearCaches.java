package dev.idem.engine.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Ticker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Near caches as an engine could have them, with one bug each: put in front of the store of an
 * engine whose own near cache is off, they answer its claims of completed records without a round
 * trip, as the engine's cache does. Without a bug ({@link Bug#NONE}) the cache passes the kit:
 * it takes what a claim answered and what a completion the store acknowledged stored, each for
 * the time its record has left, counted on the engine's ticker from before the question left.
 */
final class BrokenNearCaches {
    private BrokenNearCaches() {
    }

    /** The one bug a cache carries. */
    enum Bug {
        /** None: the cache as it should be. */
        NONE,
        /** Each hit gives the entry another TTL ("a TTL since the last read"): a key read often outlives its record. */
        SLIDING_TTL,
        /** A completion's outcome is taken before the store answered it: a refused completion is served too. */
        TAKEN_BEFORE_THE_ACKNOWLEDGEMENT
    }

    /** A cache in front of an engine's store (one engine's, as its near cache is). */
    static final class EngineSideCache extends ForwardingIdempotencyStore {
        private record Entry(ClaimResult answer, long untilTick) {
        }

        private final Bug bug;
        private final Ticker ticker;
        private final Duration ttl;
        private final Map<IdempotencyKey, Entry> entries = new ConcurrentHashMap<>();
        /** The claim each key was last won with: what a completion completes. */
        private final Map<IdempotencyKey, ClaimResult> won = new ConcurrentHashMap<>();

        EngineSideCache(IdempotencyStore store, Ticker ticker, Duration ttl, Bug bug) {
            super(store);
            this.ticker = ticker;
            this.ttl = ttl;
            this.bug = bug;
        }

        @Override
        public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
            long now = ticker.read();
            Entry hit = entries.get(key);
            if (hit != null && hit.untilTick - now > 0) {
                if (bug == Bug.SLIDING_TTL) {
                    entries.put(key, new Entry(hit.answer, now + this.ttl.toNanos()));
                }
                return hit.answer;
            }
            ClaimResult answer = delegate().claim(key, fingerprint, token, lease, ttl);
            if (answer.claimed()) {
                won.put(key, answer);
            } else if (answer.record().state() == RecordState.COMPLETED) {
                long left = Duration.between(answer.storeTime(), answer.record().expiresAt()).toNanos();
                entries.put(key, new Entry(answer, now + left));
            }
            return answer;
        }

        @Override
        public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            long before = ticker.read();
            ClaimResult claim = won.get(key);
            Entry completed = claim == null ? null : new Entry(completed(claim, outcome, ttl), before + ttl.toNanos());
            if (completed != null && bug == Bug.TAKEN_BEFORE_THE_ACKNOWLEDGEMENT) {
                entries.put(key, completed);
            }
            boolean stored = delegate().complete(key, token, outcome, ttl);
            if (stored && completed != null) {
                entries.put(key, completed);
            }
            return stored;
        }

        /** The answer a claim of the record {@code claim} won would get once completed with {@code outcome}. */
        private static ClaimResult completed(ClaimResult claim, byte[] outcome, Duration ttl) {
            StoredRecord r = claim.record();
            return ClaimResult.existing(new StoredRecord(r.key(), RecordState.COMPLETED, r.fingerprint(),
                    r.fencingToken(), r.attempt(), r.createdAt(), null, claim.storeTime().plus(ttl), outcome, null),
                    claim.storeTime());
        }
    }
}
