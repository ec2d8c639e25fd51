package dev.idem.engine;

import static dev.idem.engine.Explorer.check;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The store lane in every interleaving of two claims and a held key's renewal entering it at once:
 * the renewal never waits behind claims (a slot is kept for held keys), every call starts exactly
 * once, and as the calls end every waiting one gets its slot.
 */
class StoreLaneExploreTest {

    /** A store call that only records when the lane starts it; it stays under way until the scenario ends it. */
    static final class Recorded extends StoreLane.Call {
        final String name;
        volatile int starts;

        Recorded(String name, boolean holdsClaim) {
            super(holdsClaim);
            this.name = name;
        }

        @Override
        void start() {
            starts++;
        }
    }

    /** Two claims and a renewal enter {@code lane} at once; then every call is ended, one after another. */
    static Runnable renewalAmongClaims(java.util.function.Supplier<StoreLane> lanes) {
        return () -> {
            StoreLane lane = lanes.get();
            Recorded claimA = new Recorded("claim A", false);
            Recorded claimB = new Recorded("claim B", false);
            Recorded renewal = new Recorded("renewal", true);
            Explorer.parties(
                    () -> lane.enter(claimA),
                    () -> lane.enter(claimB),
                    () -> {
                        lane.enter(renewal);
                        check(renewal.starts == 1, "the renewal of a held key waits in the lane behind claims");
                    });
            // Ending what runs hands each slot on: everything that waited starts, once.
            List<Recorded> all = List.of(claimA, claimB, renewal);
            List<Recorded> ended = new ArrayList<>();
            for (int round = 0; round < all.size(); round++) {
                for (Recorded call : all) {
                    if (call.starts == 1 && !ended.contains(call)) {
                        ended.add(call);
                        lane.ended(call);
                    }
                }
            }
            for (Recorded call : all) {
                check(call.starts == 1, call.name + " started " + call.starts + " times, not once");
            }
            check(lane.running() == 0, "the lane still counts " + lane.running() + " calls under way");
        };
    }

    @Test
    void aRenewalNeverQueuesBehindClaims() {
        // The engine's shape, two slots wide: one for claims, one kept for held keys.
        Explorer.explore(renewalAmongClaims(() -> new StoreLane(2, 1)));
    }

    @Test
    void aRenewalNeverQueuesBehindClaimsInTheEnginesBlockingLane() {
        Explorer.explore(renewalAmongClaims(() -> AsyncRuntime.blockingLane(null)));
    }

    /** Planted: a lane that keeps no slot for held keys, so claims can take every slot. */
    @Test
    void findsARenewalQueuedBehindClaims() {
        String schedule = Explorer.findsBug("a renewal that queues behind polls",
                renewalAmongClaims(() -> new StoreLane(2, 0)));
        org.junit.jupiter.api.Assertions.assertTrue(schedule.contains("waits in the lane behind claims"), schedule);
    }
}
