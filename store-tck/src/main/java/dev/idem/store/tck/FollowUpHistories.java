package dev.idem.store.tck;

import dev.idem.api.IdempotencyKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Histories in which each party makes a few calls in a row, each as soon as the previous one
 * answered, so that a call starts after an answer another party's call was already given. On a
 * fresh key per round, four parties (two per store instance) claim at one instant, three with the
 * same request and one with another; the winner then completes, releases, checkpoints or extends
 * its lease and reads the key, and each loser reads the key. The history must be linearizable.
 *
 * <p>What this adds to {@link ConcurrentHistories}, where every call of a step starts at one
 * instant: a read that begins after a duplicate was told "in progress" must see that claim (or
 * what followed it). A store that makes a claim visible to claims before it is visible to reads
 * (a cache in front of the database that answers duplicates, while reads go to the database) says
 * "no record" here for a key that is held.
 */
final class FollowUpHistories {
    /** Rounds per run in which a loser's call met the winner's claim; a fresh key each round. */
    static final int MEETINGS = 64;
    private static final int PARTIES = 4;
    private static final long LONG = KitContext.LONG.toMillis();

    private FollowUpHistories() {
    }

    /** Runs the rounds with the seed's moves and fails with the offending key's history if it is not linearizable. */
    static void run(KitContext c, long seed) throws Exception {
        Random rnd = new Random(seed);
        History h = new History();
        Meetings meetings = new Meetings("claims followed by reads", MEETINGS);
        try (Lockstep crew = new Lockstep(PARTIES, seed)) {
            for (int round = 0; meetings.more(); round++) {
                IdempotencyKey key = c.key("follow-up-" + seed + "-" + round);
                int move = rnd.nextInt(4);
                int r = round;
                List<History.Entry> winnerClaim = new CopyOnWriteArrayList<>();
                List<History.Entry> loserCalls = new CopyOnWriteArrayList<>();
                List<Lockstep.Party> parties = new ArrayList<>();
                for (int p = 0; p < PARTIES; p++) {
                    int party = p;
                    long token = c.token();
                    String fingerprint = p == PARTIES - 1 ? "fp-b" : "fp-a";
                    parties.add(thread -> {
                        History.Entry claimed = h.call(thread, new StoreOp.Claim(key, fingerprint, token, LONG, LONG),
                                c.store(party));
                        boolean won = LockstepRaces.won(claimed.observation());
                        if (won) {
                            winnerClaim.add(claimed);
                            h.run(thread, holderMove(key, token, move, r), c.store(party));
                        } else {
                            loserCalls.add(claimed);
                        }
                        History.Entry read = h.call(thread, new StoreOp.Find(key), c.store(party));
                        if (!won) {
                            loserCalls.add(read);
                        }
                    });
                }
                crew.round(parties);
                meetings.count(Meetings.anyOverlap(winnerClaim, loserCalls));
            }
        }
        LockstepRaces.assertLinearizable(h);
    }

    private static StoreOp holderMove(IdempotencyKey key, long token, int move, int round) {
        return switch (move) {
            case 0 -> new StoreOp.Complete(key, token, "out-" + round, LONG);
            case 1 -> new StoreOp.Release(key, token);
            case 2 -> new StoreOp.Checkpoint(key, token, "j-" + round);
            default -> new StoreOp.Extend(key, token, LONG);
        };
    }
}
