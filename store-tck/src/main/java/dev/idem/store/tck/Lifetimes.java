package dev.idem.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * How long a record and its lease live: deadlines kept to the millisecond, a lease longer than
 * the TTL keeping its record alive, an extension that never shortens a record's life, and
 * purge leaving every unexpired record alone.
 *
 * <p>The SPI's rules: a claim writes {@code lease = now + lease} and
 * {@code expiresAt = max(now + ttl, lease)}; extendLease moves the lease to {@code now + lease}
 * and the expiry to at least that; complete sets {@code expiresAt = now + ttl}; purge deletes
 * only records with {@code expiresAt <= now}. Instants are compared with the store time the
 * calls report, so the checks hold on a real clock too; on a simulated clock they are exact.
 */
final class Lifetimes {
    private static final Duration LONG = KitContext.LONG;
    private static final Duration MS = Duration.ofMillis(1);
    /** Odd sub-second steps: whatever fraction the clock stood at, a store that cuts "now" to seconds shows it. */
    private static final Duration SUB_SECOND = Duration.ofMillis(317);

    private Lifetimes() {
    }

    /**
     * Store time moves by what the fixture lets pass, to the millisecond, and every deadline a
     * call writes is its store time plus the duration asked for, to the millisecond: a store
     * that cuts time or deadlines to whole seconds fails here.
     */
    static void deadlinesAreKeptToTheMillisecond(KitContext c) throws Exception {
        IdempotencyStore s = c.store();
        Duration lease = c.fixture.lease().plus(Duration.ofMillis(7));
        Duration ttl = c.fixture.ttl().plus(Duration.ofMillis(13));
        ClaimResult before = s.claim(c.key("ms-clock-0"), Boundaries.fp("a"), c.token(), LONG, LONG);
        if (c.fixture.clockIsSimulated()) {
            for (int i = 1; i <= 3; i++) {
                c.fixture.advance(SUB_SECOND);
                ClaimResult after = s.claim(c.key("ms-clock-" + i), Boundaries.fp("a"), c.token(), LONG, LONG);
                assertThat(after.storeTime()).as("store time after %s more (it was %s)", SUB_SECOND,
                        before.storeTime()).isAfterOrEqualTo(before.storeTime().plus(SUB_SECOND));
                before = after;
            }
        }
        IdempotencyKey k = c.key("ms-deadlines");
        long t = c.token();
        ClaimResult claim = s.claim(k, Boundaries.fp("a"), t, lease, ttl);
        assertWithinAMillisecond("lease deadline of a claim", claim.record().leaseExpiresAt(),
                claim.storeTime().plus(lease));
        assertWithinAMillisecond("expiry of a claim", claim.record().expiresAt(), claim.storeTime().plus(ttl));
        assertThat(s.find(k).orElseThrow().leaseExpiresAt()).isEqualTo(claim.record().leaseExpiresAt());

        Duration longer = lease.multipliedBy(5);
        Optional<Instant> extended = s.extendLease(k, t, longer);
        Instant afterExtend = s.claim(c.key("ms-bracket-1"), Boundaries.fp("a"), c.token(), LONG, LONG).storeTime();
        assertThat(extended).isPresent();
        assertBetween("lease deadline of an extension", extended.get(), claim.storeTime().plus(longer),
                afterExtend.plus(longer));
        StoredRecord found = s.find(k).orElseThrow();
        assertThat(found.leaseExpiresAt()).isEqualTo(extended.get());
        assertThat(found.expiresAt()).as("expiry carried along by the extension").isEqualTo(extended.get());

        Duration kept = ttl.multipliedBy(3);
        assertThat(s.complete(k, t, Boundaries.bytes("done"), kept)).isTrue();
        ClaimResult replay = s.claim(k, Boundaries.fp("a"), c.token(), LONG, LONG);
        assertBetween("expiry of a completed record", replay.record().expiresAt(), afterExtend.plus(kept),
                replay.storeTime().plus(kept));
    }

    /**
     * A claim whose lease is longer than its TTL keeps the record alive while the lease runs
     * ({@code expiresAt = max(now + ttl, lease)}): the holder can still checkpoint and complete
     * after the TTL, a duplicate still meets the live lease, and only at the lease deadline
     * does the record end.
     */
    static void aLeaseLongerThanTheTtlKeepsTheRecordAlive(KitContext c) throws Exception {
        IdempotencyStore s = c.store();
        Duration ttl = c.fixture.ttl();
        Duration lease = ttl.multipliedBy(2);
        IdempotencyKey finishes = c.key("long-lease-finishes");
        IdempotencyKey runsOut = c.key("long-lease-runs-out");
        long tf = c.token();
        long tr = c.token();
        ClaimResult first = s.claim(finishes, Boundaries.fp("a"), tf, lease, ttl);
        ClaimResult second = s.claim(runsOut, Boundaries.fp("a"), tr, lease, ttl);
        assertWithinAMillisecond("expiry of a claim whose lease outlives its TTL", first.record().expiresAt(),
                first.storeTime().plus(lease));

        c.fixture.advance(ttl);
        assertThat(s.find(finishes)).as("record after its TTL, lease still running").isPresent();
        ClaimResult dup = s.claim(finishes, Boundaries.fp("a"), c.token(), LONG, LONG);
        assertThat(dup.status()).as("duplicate after the TTL, during the lease: %s", dup).isEqualTo(Status.EXISTING);
        assertThat(dup.record().fencingToken()).isEqualTo(tf);
        assertThat(s.checkpoint(finishes, tf, Boundaries.bytes("step"))).as("checkpoint after the TTL").isTrue();
        assertThat(s.complete(finishes, tf, Boundaries.bytes("late"), ttl)).as("complete after the TTL").isTrue();
        assertThat(s.find(finishes).orElseThrow().outcome()).isEqualTo(Boundaries.bytes("late"));

        c.fixture.advance(lease.minus(ttl).minus(MS));
        ClaimResult last = s.claim(runsOut, Boundaries.fp("a"), c.token(), LONG, LONG);
        if (last.storeTime().isBefore(second.storeTime().plus(lease))) {
            assertThat(last.status()).as("claim just before the lease deadline: %s", last)
                    .isEqualTo(Status.EXISTING);
            assertThat(last.record().fencingToken()).isEqualTo(tr);
        }
        c.fixture.advance(MS);
        ClaimResult after = s.claim(runsOut, Boundaries.fp("a"), c.token(), LONG, LONG);
        assertThat(after.status()).as("claim at the lease deadline, which is also the expiry: %s", after)
                .isEqualTo(Status.ACQUIRED);
        assertThat(after.record().attempt()).isEqualTo(1);
    }

    /**
     * Extending with a lease shorter than the record's remaining life moves the lease deadline
     * (earlier, too) but leaves the expiry: the record stays until then, its lapsed lease can
     * be taken over, and it is never a fresh key before its time.
     */
    static void extendingALeaseNeverShortensTheRecordsLife(KitContext c) throws Exception {
        IdempotencyStore s = c.store();
        Duration lease = c.fixture.lease();
        Duration ttl = c.fixture.ttl();
        Duration shortLease = lease.dividedBy(2);
        IdempotencyKey k = c.key("short-extension");
        long t = c.token();
        ClaimResult first = s.claim(k, Boundaries.fp("a"), t, lease, ttl);
        assertThat(s.checkpoint(k, t, Boundaries.bytes("step"))).isTrue();
        Optional<Instant> deadline = s.extendLease(k, t, shortLease);
        assertThat(deadline).isPresent();
        StoredRecord extended = s.find(k).orElseThrow();
        assertThat(extended.leaseExpiresAt()).isEqualTo(deadline.get());
        assertThat(extended.expiresAt()).as("expiry after a shorter extension").isEqualTo(first.record().expiresAt());

        c.fixture.advance(shortLease);
        ClaimResult other = s.claim(k, Boundaries.fp("b"), c.token(), LONG, LONG);
        assertThat(other.status()).as("another request after the short lease: %s", other).isEqualTo(Status.EXISTING);
        assertThat(other.record().fencingToken()).isEqualTo(t);

        c.fixture.advance(ttl.minus(shortLease).minus(MS));
        ClaimResult takeover = s.claim(k, Boundaries.fp("a"), c.token(), LONG, LONG);
        if (takeover.storeTime().isBefore(first.storeTime().plus(ttl))) {
            assertThat(takeover.status()).as("the same request just before the expiry: %s", takeover)
                    .isEqualTo(Status.TAKEN_OVER);
            assertThat(takeover.record().attempt()).isEqualTo(2);
            assertThat(takeover.record().journal()).isEqualTo(Boundaries.bytes("step"));
        }
    }

    /**
     * purgeExpired deletes expired records only: an unexpired record whose lease lapsed, a
     * released one and a completed one all survive any number of purges, with their state,
     * attempt, journal and outcome.
     */
    static void purgeLeavesLiveRecordsAlone(KitContext c) throws Exception {
        IdempotencyStore s = c.store();
        Duration lease = c.fixture.lease();
        Duration ttl = c.fixture.ttl();
        IdempotencyKey lapsed = c.key("purge-lapsed");
        IdempotencyKey released = c.key("purge-released");
        IdempotencyKey completed = c.key("purge-completed");
        IdempotencyKey expired = c.key("purge-expired");
        long tl = c.token();
        long tr = c.token();
        long tc = c.token();
        long te = c.token();
        s.claim(lapsed, Boundaries.fp("a"), tl, lease, LONG);
        assertThat(s.checkpoint(lapsed, tl, Boundaries.bytes("lapsed step"))).isTrue();
        s.claim(released, Boundaries.fp("a"), tr, lease, LONG);
        assertThat(s.checkpoint(released, tr, Boundaries.bytes("released step"))).isTrue();
        assertThat(s.release(released, tr)).isTrue();
        s.claim(completed, Boundaries.fp("a"), tc, lease, ttl);
        assertThat(s.complete(completed, tc, Boundaries.bytes("kept"), LONG)).isTrue();
        s.claim(expired, Boundaries.fp("a"), te, lease, ttl);
        assertThat(s.complete(expired, te, Boundaries.bytes("gone"), ttl)).isTrue();

        c.fixture.advance(ttl);
        for (int round = 0; round < 100; round++) {
            int n = s.purgeExpired(10);
            assertThat(n).isBetween(0, 10);
            if (n == 0) {
                break;
            }
        }
        assertThat(s.find(expired)).isEmpty();
        StoredRecord l = s.find(lapsed).orElseThrow(() -> new AssertionError("purge deleted a live lapsed lease"));
        assertThat(l.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(l.fencingToken()).isEqualTo(tl);
        assertThat(l.journal()).isEqualTo(Boundaries.bytes("lapsed step"));
        StoredRecord r = s.find(released).orElseThrow(() -> new AssertionError("purge deleted a released record"));
        assertThat(r.state()).isEqualTo(RecordState.RELEASED);
        assertThat(r.journal()).isEqualTo(Boundaries.bytes("released step"));
        assertThat(s.find(completed).orElseThrow().outcome()).isEqualTo(Boundaries.bytes("kept"));

        ClaimResult takeover = s.claim(lapsed, Boundaries.fp("a"), c.token(), LONG, LONG);
        assertThat(takeover.status()).isEqualTo(Status.TAKEN_OVER);
        assertThat(takeover.record().attempt()).isEqualTo(2);
        ClaimResult again = s.claim(released, Boundaries.fp("a"), c.token(), LONG, LONG);
        assertThat(again.status()).isEqualTo(Status.ACQUIRED);
        assertThat(again.record().attempt()).as("attempt after a release survives purge").isEqualTo(2);
        assertThat(again.record().journal()).isEqualTo(Boundaries.bytes("released step"));
    }

    private static void assertWithinAMillisecond(String what, Instant actual, Instant expected) {
        assertBetween(what, actual, expected, expected);
    }

    /** {@code actual} lies in {@code [from, to]}, give or take less than a millisecond (a store may keep whole ms). */
    private static void assertBetween(String what, Instant actual, Instant from, Instant to) {
        assertThat(actual).as("%s: %s, expected %s..%s", what, actual, from, to)
                .isAfter(from.minus(MS)).isBefore(to.plus(MS));
    }
}
