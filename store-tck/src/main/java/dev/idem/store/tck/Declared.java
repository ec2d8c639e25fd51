package dev.idem.store.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * What a store declares about itself, taken at its word: whose records it keeps
 * ({@link IdempotencyStore#isBackedBy}, which the engine asks before it runs work bound to a
 * store) and the largest outcome or journal it holds
 * ({@link StoreCapabilities#maxOutcomeBytes()}, which the engine sizes what it stores by): one
 * byte more is refused, outcome and journal alike, and the limit itself is stored and read back
 * whole, not only the 1 MiB floor.
 */
final class Declared {
    private Declared() {
    }

    /**
     * A store is backed by itself, and a decorator over it ({@link ForwardingIdempotencyStore}) by
     * it too, but neither by a store that has nothing to do with it: a store that says yes to every
     * store lets the engine run another store's transactional work on it.
     */
    static void isBackedByItselfAndThroughDecoratorsOnly(KitContext c) {
        IdempotencyStore s = c.store();
        IdempotencyStore unrelated = new Unrelated();
        IdempotencyStore decorated = new ForwardingIdempotencyStore(s) { };
        assertThat(s.isBackedBy(s)).as("%s.isBackedBy(itself)", s).isTrue();
        assertThat(s.isBackedBy(unrelated)).as("%s.isBackedBy(a store that has nothing to do with it)", s).isFalse();
        assertThat(s.isBackedBy(new ForwardingIdempotencyStore(unrelated) { }))
                .as("%s.isBackedBy(a decorator over an unrelated store)", s).isFalse();
        assertThat(decorated.isBackedBy(s)).as("a ForwardingIdempotencyStore over %s, isBackedBy(it)", s).isTrue();
        assertThat(new ForwardingIdempotencyStore(decorated) { }.isBackedBy(s))
                .as("two ForwardingIdempotencyStores over %s, isBackedBy(it)", s).isTrue();
        assertThat(decorated.isBackedBy(unrelated)).as("a ForwardingIdempotencyStore over %s,"
                + " isBackedBy(an unrelated store)", s).isFalse();
    }

    /**
     * {@code complete} with an outcome one byte over the declared limit throws
     * {@link IllegalArgumentException} and changes nothing (the record stays in progress without an
     * outcome, the holder completes it afterwards), rather than storing it cut to the limit.
     */
    static void anOutcomeOverTheLimitIsRefusedAndNothingIsStored(KitContext c) {
        IdempotencyStore s = c.store();
        IdempotencyKey k = c.key("outcome-over-limit");
        long t = c.token();
        assertThat(s.claim(k, Boundaries.fp("a"), t, c.fixture.lease(), c.fixture.ttl()).claimed()).isTrue();
        int max = s.capabilities().maxOutcomeBytes();
        byte[] over = bytes(max + 1, 5);
        assertThatThrownBy(() -> s.complete(k, t, over, c.fixture.ttl()))
                .as("complete with an outcome of %d bytes, over the declared maxOutcomeBytes %d", max + 1, max)
                .isInstanceOf(IllegalArgumentException.class);
        StoredRecord after = s.find(k).orElseThrow(() -> new AssertionError("the record is gone after a refused"
                + " complete"));
        assertThat(after.state()).as("state after a refused oversized outcome").isEqualTo(RecordState.IN_PROGRESS);
        assertThat(after.outcome()).as("outcome after a refused oversized outcome").isNull();
        assertThat(after.fencingToken()).isEqualTo(t);
        assertThat(s.complete(k, t, Boundaries.bytes("fits"), c.fixture.ttl())).isTrue();
        assertThat(s.find(k).orElseThrow().outcome()).isEqualTo(Boundaries.bytes("fits"));
    }

    /**
     * A journal and an outcome of exactly the declared limit are stored, and read back whole through
     * find and through a claim: a store that declares more than it keeps (cutting or refusing
     * above a smaller size) loses what the engine was told fits.
     */
    static void valuesAtTheLimitAreStoredWhole(KitContext c) {
        IdempotencyStore s = c.store();
        int max = s.capabilities().maxOutcomeBytes();
        IdempotencyKey k = c.key("at-limit");
        long t = c.token();
        assertThat(s.claim(k, Boundaries.fp("a"), t, c.fixture.lease(), c.fixture.ttl()).claimed()).isTrue();
        byte[] journal = bytes(max, 17);
        assertThat(s.checkpoint(k, t, journal)).as("checkpoint of a journal of maxOutcomeBytes (%d)", max).isTrue();
        assertWhole("the journal read back with find", s.find(k).orElseThrow().journal(), journal);
        byte[] outcome = bytes(max, 19);
        assertThat(s.complete(k, t, outcome, c.fixture.ttl())).as("complete with an outcome of maxOutcomeBytes (%d)",
                max).isTrue();
        assertWhole("the outcome read back with find", s.find(k).orElseThrow().outcome(), outcome);
        ClaimResult replay = s.claim(k, Boundaries.fp("a"), c.token(), c.fixture.lease(), c.fixture.ttl());
        assertThat(replay.status()).isEqualTo(ClaimResult.Status.EXISTING);
        assertWhole("the outcome a duplicate's claim returns", replay.record().outcome(), outcome);
    }

    /** Seeded bytes (every value, no runs a store could compress away unnoticed). */
    static byte[] bytes(int length, long seed) {
        byte[] b = new byte[length];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** Compares large arrays without printing them. */
    static void assertWhole(String what, byte[] actual, byte[] expected) {
        if (Arrays.equals(actual, expected)) {
            return;
        }
        if (actual == null) {
            throw new AssertionError(what + ": none, expected " + expected.length + " bytes");
        }
        int at = Arrays.mismatch(actual, expected);
        throw new AssertionError(what + ": " + actual.length + " bytes, expected " + expected.length
                + " (the first difference at byte " + at + ")");
    }

    /** A store that shares nothing with any other: every operation refuses. */
    private static final class Unrelated implements IdempotencyStore {
        private static UnsupportedOperationException unused() {
            return new UnsupportedOperationException("a store unrelated to the one under test");
        }

        @Override
        public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
                Duration ttl) {
            throw unused();
        }

        @Override
        public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
            throw unused();
        }

        @Override
        public boolean release(IdempotencyKey key, long fencingToken) {
            throw unused();
        }

        @Override
        public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            throw unused();
        }

        @Override
        public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
            throw unused();
        }

        @Override
        public Optional<StoredRecord> find(IdempotencyKey key) {
            throw unused();
        }

        @Override
        public int purgeExpired(int limit) {
            throw unused();
        }

        @Override
        public StoreCapabilities capabilities() {
            return new StoreCapabilities(false, false, 1024 * 1024);
        }

        @Override
        public String toString() {
            return "an unrelated store";
        }
    }
}
