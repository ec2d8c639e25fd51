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
 * the old record's expiry lets the record die under the new holder's live lease: a duplicate then
 * claims the key as new and the work runs twice. Each check reads the deadlines the claim reports
 * and then lets the old expiry pass: the record must live on, held by the new holder.
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
        ClaimResult reclaim = s.claim(k, Boundaries.fp("a"), second, lease, ttl);
        assertThat(reclaim.status()).as("a claim of the released key: %s", reclaim).isEqualTo(Status.ACQUIRED);
        assertFresh("a reclaim", reclaim, lease, ttl);
        livesPastTheOldExpiry(c, "reclaimed", k, second, oldExpiry, reclaim.record().leaseExpiresAt());
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
        // The taker asks for a lease as long as the TTL, so it runs past the old expiry.
        ClaimResult takeover = s.claim(k, Boundaries.fp("a"), taker, ttl, ttl);
        assertThat(takeover.status()).as("a claim of the lapsed lease: %s", takeover).isEqualTo(Status.TAKEN_OVER);
        assertFresh("a takeover", takeover, ttl, ttl);
        livesPastTheOldExpiry(c, "taken over", k, taker, oldExpiry, takeover.record().leaseExpiresAt());
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
     * Lets the old record's expiry pass while the new lease still runs: the record is there, held
     * by {@code holder}, refuses a duplicate and takes the holder's journal and outcome.
     */
    private static void livesPastTheOldExpiry(KitContext c, String how, IdempotencyKey k, long holder,
            Instant oldExpiry, Instant leaseUntil) throws Exception {
        IdempotencyStore s = c.store();
        Instant probe = s.claim(c.key(how.replace(' ', '-') + "-probe"), Boundaries.fp("a"), c.token(), KitContext.LONG,
                KitContext.LONG).storeTime();
        Duration toOldExpiry = Duration.between(probe, oldExpiry);
        c.fixture.advance((toOldExpiry.isNegative() ? Duration.ZERO : toOldExpiry).plus(c.fixture.slack()));
        ClaimResult dup = s.claim(k, Boundaries.fp("a"), c.token(), c.fixture.lease(), c.fixture.ttl());
        if (!dup.storeTime().isBefore(leaseUntil)) {
            return; // a clock that really sleeps overshot the new lease: nothing left to judge
        }
        assertThat(dup.status()).as("a duplicate after the old expiry (%s), under the %s record's live lease"
                + " (until %s): %s", oldExpiry, how, leaseUntil, dup).isEqualTo(Status.EXISTING);
        assertThat(dup.record().fencingToken()).isEqualTo(holder);
        StoredRecord live = s.find(k).orElseThrow(() -> new AssertionError("the " + how + " record died at the old"
                + " record's expiry " + oldExpiry + " under its live lease (until " + leaseUntil + ")"));
        assertThat(live.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(s.checkpoint(k, holder, Boundaries.bytes("step"))).as("the holder's checkpoint").isTrue();
        assertThat(s.complete(k, holder, Boundaries.bytes("done"), c.fixture.ttl())).as("the holder's complete")
                .isTrue();
    }
}
