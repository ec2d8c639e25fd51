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

/**
 * A claim that finds a record (a released one it reclaims, a lapsed lease it takes over) writes
 * the record's life anew, as a claim of a fresh key does: {@code lease = now + lease},
 * {@code expiresAt = max(now + ttl, lease)}, from the store time of that claim. A store that keeps
 * the old record's expiry, or forgets the lease in the maximum, lets the record die under the new
 * holder's live lease: a duplicate then claims the key as new and the work runs twice. Each check
 * claims with a lease longer than the TTL, reads the deadlines the claim reports, and then lets
 * the old expiry and a TTL from the claim pass: the record must live on, held by the new holder.
 */
final class Renewals {
    private static final Duration MS = Duration.ofMillis(1);

    private Renewals() {
    }

    /** A key released late in its life and claimed again lives a TTL from the reclaim. */
    static void aReclaimedRecordLivesFromTheReclaim(KitContext c) throws Exception {
        IdempotencyStore s = c.store();
        Duration lease = c.fixture.lease();
        Duration ttl = c.fixture.ttl();
        IdempotencyKey k = c.key("reclaimed");
        long first = c.token();
        ClaimResult claim = s.claim(k, Boundaries.fp("a"), first, lease, ttl);
        assertThat(s.release(k, first)).isTrue();
        Instant oldExpiry = claim.record().expiresAt();

        c.fixture.advance(ttl.minus(lease.dividedBy(2)));
        long second = c.token();
        // A lease longer than the TTL: the record must live until the lease deadline, past both TTLs.
        Duration longLease = ttl.multipliedBy(2);
        ClaimResult reclaim = s.claim(k, Boundaries.fp("a"), second, longLease, ttl);
        assertThat(reclaim.status()).as("a claim of the released key: %s", reclaim).isEqualTo(Status.ACQUIRED);
        assertFresh("a reclaim", reclaim, longLease, ttl);
        livesPast(c, "reclaimed", k, second, later(oldExpiry, reclaim.storeTime().plus(ttl)),
                reclaim.record().leaseExpiresAt());
    }

    /** A lapsed lease taken over lives a TTL (or the new lease, if longer) from the takeover. */
    static void aTakenOverRecordLivesFromTheTakeover(KitContext c) throws Exception {
        IdempotencyStore s = c.store();
        Duration lease = c.fixture.lease();
        Duration ttl = c.fixture.ttl();
        IdempotencyKey k = c.key("taken-over");
        ClaimResult claim = s.claim(k, Boundaries.fp("a"), c.token(), lease, ttl);
        Instant oldExpiry = claim.record().expiresAt();

        c.fixture.advance(lease.plus(c.fixture.slack()));
        long taker = c.token();
        // A lease longer than the TTL: the record must live until the lease deadline, past both TTLs.
        Duration longLease = ttl.multipliedBy(2);
        ClaimResult takeover = s.claim(k, Boundaries.fp("a"), taker, longLease, ttl);
        assertThat(takeover.status()).as("a claim of the lapsed lease: %s", takeover).isEqualTo(Status.TAKEN_OVER);
        assertFresh("a takeover", takeover, longLease, ttl);
        livesPast(c, "taken over", k, taker, later(oldExpiry, takeover.storeTime().plus(ttl)),
                takeover.record().leaseExpiresAt());
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    private static void assertFresh(String what, ClaimResult claim, Duration lease, Duration ttl) {
        Instant now = claim.storeTime();
        Instant leaseUntil = now.plus(lease);
        Instant expires = now.plus(ttl).isAfter(leaseUntil) ? now.plus(ttl) : leaseUntil;
        assertThat(claim.record().leaseExpiresAt()).as("lease deadline written by %s at %s", what, now)
                .isAfter(leaseUntil.minus(MS)).isBefore(leaseUntil.plus(MS));
        assertThat(claim.record().expiresAt()).as("expiry written by %s at %s (max(now + ttl, lease))", what, now)
                .isAfter(expires.minus(MS)).isBefore(expires.plus(MS));
    }

    /**
     * Lets both the old record's expiry and a TTL from the new claim pass while the new lease
     * still runs: the record is there, held by {@code holder}, refuses a duplicate and takes the
     * holder's journal and outcome.
     */
    private static void livesPast(KitContext c, String how, IdempotencyKey k, long holder,
            Instant mustOutlive, Instant leaseUntil) throws Exception {
        IdempotencyStore s = c.store();
        IdempotencyKey probeKey = c.key(how.replace(' ', '-') + "-probe");
        Instant probe = s.claim(probeKey, Boundaries.fp("a"), c.token(), KitContext.LONG, KitContext.LONG).storeTime();
        Duration toThen = Duration.between(probe, mustOutlive);
        c.fixture.advance((toThen.isNegative() ? Duration.ZERO : toThen).plus(c.fixture.slack()));
        ClaimResult dup = s.claim(k, Boundaries.fp("a"), c.token(), c.fixture.lease(), c.fixture.ttl());
        if (!dup.storeTime().isBefore(leaseUntil)) {
            return; // a clock that really sleeps overshot the new lease: nothing left to judge
        }
        assertThat(dup.status()).as("a duplicate after %s (the old record's expiry, or a TTL from the claim),"
                + " under the %s record's live lease (until %s): %s", mustOutlive, how, leaseUntil, dup)
                .isEqualTo(Status.EXISTING);
        assertThat(dup.record().fencingToken()).isEqualTo(holder);
        StoredRecord live = s.find(k).orElseThrow(() -> new AssertionError("the " + how + " record died at "
                + mustOutlive + " under its live lease (until " + leaseUntil + ")"));
        assertThat(live.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(s.checkpoint(k, holder, Boundaries.bytes("step"))).as("the holder's checkpoint").isTrue();
        assertThat(s.complete(k, holder, Boundaries.bytes("done"), c.fixture.ttl())).as("the holder's complete")
                .isTrue();
    }
}
