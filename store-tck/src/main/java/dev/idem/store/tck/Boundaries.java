package dev.idem.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Deadlines to the millisecond, fencing of lapsed leases, and keys that differ in one part.
 *
 * <p>The SPI says a lease has lapsed and a record has expired once {@code deadline <= now}.
 * A fixture's {@link StoreFixture#advance} lets at least the given time pass, exactly that
 * much on a simulated clock: advancing by the lease from the claim puts "now" on the
 * deadline itself there, and at or after it on any clock, so the "at the deadline" checks
 * hold everywhere. One millisecond before a deadline can only be reached on a simulated
 * clock; there the check is exact, elsewhere it is judged by the store time the claim
 * reports, so it never depends on how fast the machine is. Deadlines are judged against what
 * the SPI says they are ({@code now + lease}, {@code now + ttl}, from the store time of the
 * call), never against the deadline the store reports, so a store that cuts its deadlines
 * short (to whole seconds, say: the kit's simulated clocks stand off the whole second) fails.
 */
final class Boundaries {
    private static final Duration LONG = KitContext.LONG;
    private static final Duration MS = Duration.ofMillis(1);

    private Boundaries() {
    }

    /** A lease still holds one millisecond before its deadline and is lapsed at it. */
    static void leaseLapsesExactlyAtItsDeadline(KitContext c) throws Exception {
        IdempotencyStore s = c.store();
        Duration lease = c.fixture.lease();
        IdempotencyKey early = c.key("lease-early");
        IdempotencyKey onTime = c.key("lease-on-time");
        long t1 = c.token();
        long t2 = c.token();
        ClaimResult first = s.claim(early, fp("a"), t1, lease, LONG);
        ClaimResult second = s.claim(onTime, fp("a"), t2, lease, LONG);

        c.fixture.advance(lease.minus(MS));
        ClaimResult probe = s.claim(early, fp("a"), c.token(), LONG, LONG);
        if (probe.storeTime().isBefore(first.storeTime().plus(lease))) {
            assertThat(probe.status()).as("claim before the lease deadline: %s", probe).isEqualTo(Status.EXISTING);
            assertThat(probe.record().fencingToken()).isEqualTo(t1);
        } else {
            assertThat(probe.status()).as("claim at or after the lease deadline: %s", probe)
                    .isEqualTo(Status.TAKEN_OVER);
        }

        c.fixture.advance(MS);
        long taker = c.token();
        assertThat(s.claim(onTime, fp("b"), c.token(), LONG, LONG).status())
                .as("another request at the lease deadline").isEqualTo(Status.EXISTING);
        ClaimResult takeover = s.claim(onTime, fp("a"), taker, LONG, LONG);
        assertThat(takeover.status()).as("claim at the lease deadline %s: %s",
                second.storeTime().plus(lease), takeover).isEqualTo(Status.TAKEN_OVER);
        assertThat(takeover.record().attempt()).isEqualTo(2);
        assertThat(takeover.record().fencingToken()).isEqualTo(taker);
        assertThat(s.complete(onTime, t2, bytes("stale"), LONG)).isFalse();
        assertThat(s.complete(onTime, taker, bytes("taker"), LONG)).isTrue();
        assertThat(s.find(onTime).orElseThrow().outcome()).isEqualTo(bytes("taker"));
    }

    /** At {@code now == expiresAt} a record of every state is gone for every operation, checkpoint included. */
    static void recordsExpireExactlyAtExpiresAt(KitContext c) throws Exception {
        IdempotencyStore s = c.store();
        Duration lease = c.fixture.lease();
        Duration ttl = c.fixture.ttl();
        IdempotencyKey probeHeld = c.key("expiry-early-in-progress");
        IdempotencyKey probeDone = c.key("expiry-early-completed");
        IdempotencyKey done = c.key("expiry-completed");
        IdempotencyKey held = c.key("expiry-in-progress");
        IdempotencyKey released = c.key("expiry-released");
        long tp = c.token();
        long td = c.token();
        long th = c.token();
        long tr = c.token();
        ClaimResult heldClaim = s.claim(probeHeld, fp("a"), c.token(), lease, ttl);
        ClaimResult doneClaim = s.claim(probeDone, fp("a"), tp, lease, ttl);
        s.claim(done, fp("a"), td, lease, ttl);
        s.claim(held, fp("a"), th, lease, ttl);
        s.claim(released, fp("a"), tr, lease, ttl);
        assertThat(s.complete(probeDone, tp, bytes("p"), ttl)).isTrue();
        assertThat(s.complete(done, td, bytes("d"), ttl)).isTrue();
        assertThat(s.release(released, tr)).isTrue();
        assertThat(s.checkpoint(held, th, bytes("j"))).isTrue();
        // The completes ran between the two claims' store times: their expiry is now + ttl from within that span.
        Instant doneBy = s.claim(c.key("expiry-bracket"), fp("a"), c.token(), LONG, LONG).storeTime();

        c.fixture.advance(ttl.minus(MS));
        ClaimResult early = s.claim(probeHeld, fp("other"), c.token(), LONG, LONG);
        if (early.storeTime().isBefore(heldClaim.storeTime().plus(ttl))) {
            assertThat(early.status()).as("claim before expiry: %s", early).isEqualTo(Status.EXISTING);
        } else {
            assertThat(early.status()).as("claim at or after expiry: %s", early).isEqualTo(Status.ACQUIRED);
        }
        ClaimResult earlyDone = s.claim(probeDone, fp("other"), c.token(), LONG, LONG);
        if (earlyDone.storeTime().isBefore(doneClaim.storeTime().plus(ttl))) {
            assertThat(earlyDone.status()).as("claim before expiry: %s", earlyDone).isEqualTo(Status.EXISTING);
            assertThat(earlyDone.record().outcome()).isEqualTo(bytes("p"));
        } else if (!earlyDone.storeTime().isBefore(doneBy.plus(ttl))) {
            assertThat(earlyDone.status()).as("claim at or after expiry: %s", earlyDone).isEqualTo(Status.ACQUIRED);
            assertThat(earlyDone.record().attempt()).isEqualTo(1);
        }

        c.fixture.advance(MS);
        for (IdempotencyKey k : List.of(done, held, released)) {
            assertThat(s.find(k)).as("find of %s at its expiry", k.key()).isEmpty();
        }
        assertThat(s.complete(done, td, bytes("d"), ttl)).as("complete repeated at expiry").isFalse();
        assertThat(s.checkpoint(held, th, bytes("late")))
                .as("checkpoint of an in-progress record at expiry").isFalse();
        assertThat(s.complete(held, th, bytes("h"), ttl)).as("complete of an in-progress record at expiry")
                .isFalse();
        assertThat(s.release(held, th)).as("release at expiry").isFalse();
        assertThat(s.extendLease(held, th, LONG)).as("extendLease at expiry").isEmpty();
        assertThat(s.release(released, tr)).as("repeated release at expiry").isFalse();
        for (IdempotencyKey k : List.of(done, held, released)) {
            ClaimResult fresh = s.claim(k, fp("a"), c.token(), LONG, LONG);
            assertThat(fresh.status()).as("claim of %s at its expiry", k.key()).isEqualTo(Status.ACQUIRED);
            assertThat(fresh.record().attempt()).as("attempt of %s after expiry", k.key()).isEqualTo(1);
            assertThat(fresh.record().journal()).as("journal of %s after expiry", k.key()).isNull();
        }
    }

    /** Extending a lease past the record's expiry carries the expiry along. */
    static void extendingALeaseMovesTheExpiry(KitContext c) throws Exception {
        IdempotencyStore s = c.store();
        Duration lease = c.fixture.lease();
        Duration ttl = c.fixture.ttl();
        IdempotencyKey k = c.key("extend-expiry");
        long t = c.token();
        ClaimResult first = s.claim(k, fp("a"), t, lease, ttl);
        Instant oldExpiry = first.record().expiresAt();
        Optional<Instant> deadline = s.extendLease(k, t, ttl.plus(LONG));
        assertThat(deadline).isPresent();
        StoredRecord extended = s.find(k).orElseThrow();
        assertThat(extended.leaseExpiresAt()).isEqualTo(deadline.get());
        assertThat(extended.expiresAt()).as("expiresAt after extending the lease past it")
                .isAfterOrEqualTo(deadline.get()).isAfter(oldExpiry);

        c.fixture.advance(ttl);
        assertThat(s.find(k)).as("record after its original expiry, lease extended").isPresent();
        ClaimResult dup = s.claim(k, fp("a"), c.token(), LONG, LONG);
        assertThat(dup.status()).as("claim during the extended lease: %s", dup).isEqualTo(Status.EXISTING);
        assertThat(dup.record().fencingToken()).isEqualTo(t);
        assertThat(s.complete(k, t, bytes("late but mine"), ttl)).isTrue();
    }

    /**
     * A lapsed lease that nobody took over still belongs to its holder: other tokens change
     * nothing, not the outcome, not the state, not the step journal.
     */
    static void foreignTokensAreRefusedOnALapsedLease(KitContext c) throws Exception {
        IdempotencyStore s = c.store();
        Duration lease = c.fixture.lease();
        IdempotencyKey k = c.key("lapsed-fence");
        long holder = c.token();
        long stranger = c.token();
        s.claim(k, fp("a"), holder, lease, LONG);
        assertThat(s.checkpoint(k, holder, bytes("holder's step"))).isTrue();
        c.fixture.advance(lease);

        assertThat(s.checkpoint(k, stranger, bytes("stranger's step")))
                .as("checkpoint with another token on a lapsed lease").isFalse();
        assertThat(s.find(k).orElseThrow().journal()).as("journal after a stranger's checkpoint")
                .isEqualTo(bytes("holder's step"));
        assertThat(s.release(k, stranger)).as("release with another token on a lapsed lease").isFalse();
        assertThat(s.complete(k, stranger, bytes("stranger"), LONG)).as("complete with another token").isFalse();
        assertThat(s.extendLease(k, stranger, LONG)).as("extendLease with another token").isEmpty();
        StoredRecord rec = s.find(k).orElseThrow();
        assertThat(rec.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(rec.fencingToken()).isEqualTo(holder);
        assertThat(rec.attempt()).isEqualTo(1);
        assertThat(rec.outcome()).isNull();
        assertThat(rec.journal()).isEqualTo(bytes("holder's step"));
        assertThat(s.checkpoint(k, holder, bytes("holder's next step"))).as("the holder's own checkpoint").isTrue();
        assertThat(s.complete(k, holder, bytes("mine"), LONG)).isTrue();
        assertThat(s.find(k).orElseThrow().outcome()).isEqualTo(bytes("mine"));
    }

    /** Keys equal but for the scope, the operation or the client key are separate records with separate outcomes. */
    static void keysDifferingInOnePartAreSeparate(KitContext c) {
        IdempotencyStore s = c.store();
        List<IdempotencyKey> keys = List.of(
                IdempotencyKey.of(c.scope, "charge", "k"),
                IdempotencyKey.of(c.scope + "-other", "charge", "k"),
                IdempotencyKey.of(c.scope, "refund", "k"),
                IdempotencyKey.of(c.scope, "charge", "k2"));
        for (IdempotencyKey k : keys) {
            long t = c.token();
            ClaimResult r = s.claim(k, fp("same request"), t, LONG, LONG);
            assertThat(r.status()).as("claim of %s", k).isEqualTo(Status.ACQUIRED);
            assertThat(s.complete(k, t, bytes(k.toString()), LONG)).as("complete of %s", k).isTrue();
        }
        for (IdempotencyKey k : keys) {
            StoredRecord found = s.find(k).orElseThrow();
            assertThat(found.key()).isEqualTo(k);
            assertThat(found.outcome()).as("outcome found for %s", k).isEqualTo(bytes(k.toString()));
            ClaimResult replay = s.claim(k, fp("same request"), c.token(), LONG, LONG);
            assertThat(replay.status()).isEqualTo(Status.EXISTING);
            assertThat(replay.record().outcome()).as("outcome replayed for %s", k).isEqualTo(bytes(k.toString()));
        }
    }

    static byte[] fp(String s) {
        return bytes("fp:" + s);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
