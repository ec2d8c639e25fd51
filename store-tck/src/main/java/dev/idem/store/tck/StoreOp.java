package dev.idem.store.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One store operation as the kit's model and checkers see it: it can be applied to a real
 * store, which yields an observation (a normalized string), and to the model, which yields
 * the observations it allows. Two observations are equal exactly when the kit considers
 * the results equivalent: instants are left out, because the model's clock is logical.
 */
sealed interface StoreOp {

    /** The key the operation touches; null for {@link Advance}, which touches every key. */
    IdempotencyKey key();

    /** Performs the operation on a real store and describes the result. */
    String apply(IdempotencyStore store) throws Exception;

    /** {@code claim(key, fingerprint, token, lease, ttl)}. */
    record Claim(IdempotencyKey key, String fingerprint, long token, long leaseMillis, long ttlMillis)
            implements StoreOp {
        @Override
        public String apply(IdempotencyStore store) {
            ClaimResult r = store.claim(key, bytes(fingerprint), token, Duration.ofMillis(leaseMillis),
                    Duration.ofMillis(ttlMillis));
            return r.status() + " " + describe(r.record());
        }

        @Override
        public String toString() {
            return "claim(" + key.key() + ", " + fingerprint + ", t" + Long.toHexString(token) + ", lease "
                    + leaseMillis + ", ttl " + ttlMillis + ")";
        }
    }

    /** {@code complete(key, token, outcome, ttl)}. */
    record Complete(IdempotencyKey key, long token, String outcome, long ttlMillis) implements StoreOp {
        @Override
        public String apply(IdempotencyStore store) {
            return Boolean.toString(store.complete(key, token, bytes(outcome), Duration.ofMillis(ttlMillis)));
        }

        @Override
        public String toString() {
            return "complete(" + key.key() + ", t" + Long.toHexString(token) + ", " + outcome + ")";
        }
    }

    /** {@code release(key, token)}. */
    record Release(IdempotencyKey key, long token) implements StoreOp {
        @Override
        public String apply(IdempotencyStore store) {
            return Boolean.toString(store.release(key, token));
        }

        @Override
        public String toString() {
            return "release(" + key.key() + ", t" + Long.toHexString(token) + ")";
        }
    }

    /** {@code checkpoint(key, token, journal)}: the step journal is part of every record the model describes. */
    record Checkpoint(IdempotencyKey key, long token, String journal) implements StoreOp {
        @Override
        public String apply(IdempotencyStore store) {
            return Boolean.toString(store.checkpoint(key, token, bytes(journal)));
        }

        @Override
        public String toString() {
            return "checkpoint(" + key.key() + ", t" + Long.toHexString(token) + ", " + journal + ")";
        }
    }

    /** {@code extendLease(key, token, lease)}; the new deadline is not compared, only whether there is one. */
    record Extend(IdempotencyKey key, long token, long leaseMillis) implements StoreOp {
        @Override
        public String apply(IdempotencyStore store) {
            return store.extendLease(key, token, Duration.ofMillis(leaseMillis)).isPresent() ? "extended" : "refused";
        }

        @Override
        public String toString() {
            return "extendLease(" + key.key() + ", t" + Long.toHexString(token) + ", " + leaseMillis + ")";
        }
    }

    /** {@code find(key)}. */
    record Find(IdempotencyKey key) implements StoreOp {
        @Override
        public String apply(IdempotencyStore store) {
            return store.find(key).map(StoreOp::describe).orElse("absent");
        }

        @Override
        public String toString() {
            return "find(" + key.key() + ")";
        }
    }

    /** Time passing on the store's clock; applied through the fixture, never concurrently with other operations. */
    record Advance(long millis, StoreFixture fixture) implements StoreOp {
        @Override
        public IdempotencyKey key() {
            return null;
        }

        @Override
        public String apply(IdempotencyStore store) throws InterruptedException {
            fixture.advance(Duration.ofMillis(millis));
            return "advanced";
        }

        @Override
        public String toString() {
            return "advance(" + millis + ")";
        }
    }

    /** The UTF-8 bytes of {@code s}: fingerprints and outcomes are short ASCII strings in the kit. */
    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A real record without its instants, in the model's format. */
    static String describe(StoredRecord r) {
        return describe(r.state(), text(r.fingerprint()), r.fencingToken(), r.attempt(), text(r.outcome()),
                text(r.journal()));
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** The common format of a record's observable, time-free fields. */
    static String describe(RecordState state, String fingerprint, long token, int attempt, String outcome,
            String journal) {
        return state + " fp=" + fingerprint + " t" + Long.toHexString(token) + " attempt=" + attempt
                + (state == RecordState.COMPLETED ? " outcome=" + outcome : "")
                + (journal == null ? "" : " journal=" + journal);
    }
}
