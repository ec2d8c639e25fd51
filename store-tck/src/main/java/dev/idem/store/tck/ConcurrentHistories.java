package dev.idem.store.tck;

import dev.idem.api.IdempotencyKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Random concurrent workloads recorded as histories and checked for linearizability against
 * {@link StoreModel}. Each step, every thread makes one call on the same key, all released at
 * one instant by a {@link Lockstep} crew, half of them through each store instance: claims
 * (fresh, a retry with the caller's own token, another request's fingerprint, a lease longer
 * than the TTL), completes, releases, checkpoints and lease extensions (longer and shorter
 * than the record's remaining life) with the holder's token, a stale one or a stranger's, and
 * reads. On a simulated clock time passes between steps, by whole leases (landing on deadlines)
 * and by sub-second amounts, so leases lapse and records expire in every way.
 *
 * <p>The holder's token is the one the last winning claim of the key was answered with, so most
 * steps pit the holder's moves against each other and against claims: that is where a store
 * whose operation reads, then writes, loses an update. A key that was completed is often
 * replaced by a fresh one, so free keys are claimed in lockstep again and again.
 *
 * <p>Seeded: the moves are drawn by the main thread from the seed, so a run is reproducible
 * up to the order in which the store serializes racing calls. A workload runs until
 * {@link #STEPS} of its steps had calls that met ({@link Meetings}), so a loaded machine that
 * runs a step's calls one after another makes more steps, not a weaker history.
 */
final class ConcurrentHistories {
    static final int THREADS = 4;
    static final int SLOTS = 2;
    /** Steps per workload in which at least two calls met (see {@link Meetings}). */
    static final int STEPS = 40;

    private ConcurrentHistories() {
    }

    /** What the main thread knows of one key between steps. */
    private static final class Slot {
        final String name;
        IdempotencyKey key;
        int generation;
        long holder;
        final List<Long> stale = new ArrayList<>();
        boolean completed;
        boolean released;

        Slot(String name) {
            this.name = name;
        }

        /** Moves on to a fresh key, so that claims meet on a free key again. */
        void renew(KitContext c) {
            key = c.key(name + ++generation);
            holder = 0;
            stale.clear();
            completed = false;
            released = false;
        }

        /** The kind of step to make, from a draw of five: a held key mostly sees its holder's moves. */
        Mode mode(int pick) {
            if (holder != 0 && !completed && !released) {
                return pick < 2 ? Mode.HOLDER : pick == 2 ? Mode.MOVES : pick == 3 ? Mode.RUSH : Mode.ANY;
            }
            return pick < 3 ? Mode.RUSH : Mode.ANY;
        }

        /** Takes in what a step did: who holds the key now, whether it was completed or released. */
        void learn(StoreOp[] ops, String[] seen, long[] lastWon) {
            for (int t = 0; t < ops.length; t++) {
                if (ops[t] instanceof StoreOp.Claim claim && LockstepRaces.won(seen[t]) && claim.token() != holder) {
                    if (holder != 0) {
                        stale.add(holder);
                    }
                    holder = claim.token();
                    released = false;
                    lastWon[t] = claim.token();
                }
            }
            for (int t = 0; t < ops.length; t++) {
                if (ops[t] instanceof StoreOp.Complete && seen[t].equals("true")) {
                    completed = true;
                }
                if (ops[t] instanceof StoreOp.Release rel && seen[t].equals("true") && rel.token() == holder) {
                    released = true;
                }
            }
        }
    }

    /** Runs one seeded workload and fails with the offending key's history if it is not linearizable. */
    static void run(KitContext c, long seed) throws Exception {
        boolean timePasses = c.fixture.clockIsSimulated();
        // One unit of logical time; leases and TTLs are whole units so that a real clock running
        // alongside a moved one cannot put a call on the wrong side of a deadline.
        long unit = Math.max(c.fixture.lease().toMillis(), Duration.ofSeconds(10).toMillis());
        long lease = timePasses ? unit : KitContext.LONG.toMillis();
        long ttl = timePasses ? 2 * unit : KitContext.LONG.toMillis();
        // Whole leases land on deadlines; a lease less a millisecond, a millisecond and 250 ms land around them.
        long[] advances = {unit, unit, 2 * unit, unit - 1, 1, 250};
        Random rnd = new Random(seed);
        Slot[] slots = new Slot[SLOTS];
        for (int s = 0; s < SLOTS; s++) {
            slots[s] = new Slot("history-" + seed + "-" + s + "-");
            slots[s].key = c.key(slots[s].name + 0);
        }
        long[] lastWon = new long[THREADS];
        History h = new History();
        Meetings meetings = new Meetings("concurrent history " + seed, STEPS);
        try (Lockstep crew = new Lockstep(THREADS, seed)) {
            for (int step = 0; meetings.more(); step++) {
                if (timePasses && rnd.nextInt(5) == 0) {
                    h.run("main", new StoreOp.Advance(advances[rnd.nextInt(advances.length)], c.fixture), c.store());
                }
                Slot slot = slots[rnd.nextInt(SLOTS)];
                if (rnd.nextInt(4) > 0 && slot.completed) {
                    slot.renew(c);
                }
                Mode mode = slot.mode(rnd.nextInt(5));
                int left = rnd.nextInt(4);
                StoreOp[] ops = new StoreOp[THREADS];
                for (int t = 0; t < THREADS; t++) {
                    // In a HOLDER step threads 0, 1 and 3 make three different moves of the four (one is left out);
                    // in a MOVES step the four threads make the four moves.
                    int holderMove = (left + 1 + (t == 3 && mode == Mode.HOLDER ? 2 : t)) % 4;
                    ops[t] = move(c, rnd, slot, mode, t, holderMove, lastWon[t], lease, ttl, "s" + step + "t" + t);
                }
                History.Entry[] calls = new History.Entry[THREADS];
                List<Lockstep.Party> parties = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    parties.add(name -> calls[thread] = h.call(name, ops[thread], c.store(thread)));
                }
                crew.round(parties);
                List<History.Entry> made = Arrays.asList(calls);
                slot.learn(ops, made.stream().map(History.Entry::observation).toArray(String[]::new), lastWon);
                meetings.count(Meetings.anyOverlap(made, made));
            }
        }
        for (Slot slot : slots) {
            h.run("main", new StoreOp.Find(slot.key), c.store());
        }
        LockstepRaces.assertLinearizable(h);
    }

    /** What a step pits against what. */
    private enum Mode {
        /** Everyone claims: one winner of a free key or a lapsed lease. */
        RUSH,
        /** Three moves of the holder (or of a stale holder) against a claim: most store bugs are lost updates here. */
        HOLDER,
        /** The holder's four moves (complete, release, checkpoint, extend) at once. */
        MOVES,
        /** Anything. */
        ANY
    }

    /** One thread's move on the slot's key; draws the same number of values whatever it picks. */
    private static StoreOp move(KitContext c, Random rnd, Slot slot, Mode mode, int thread, int holderMove,
            long lastWon, long lease, long ttl, String label) {
        int dice = rnd.nextInt(100);
        int who = rnd.nextInt(8);
        int length = rnd.nextInt(4);
        IdempotencyKey key = slot.key;
        // Mostly the holder; sometimes a holder whose key was taken over, or a stranger.
        long token = who < 6 || slot.holder == 0 ? slot.holder
                : who == 6 && !slot.stale.isEmpty() ? slot.stale.get(slot.stale.size() - 1) : c.token();
        if (token == 0) {
            token = c.token();
        }
        // A lease shorter than the record's remaining life, one that lands on it, one longer than the TTL.
        long leaseLength = length == 0 ? lease / 2 : length == 3 ? 3 * ttl / 2 : lease;
        if (mode == Mode.RUSH || mode == Mode.HOLDER && thread == 2) {
            dice = who == 0 && lastWon != 0 ? 30 : 0;
        } else if (mode == Mode.HOLDER || mode == Mode.MOVES) {
            dice = new int[] {34, 52, 66, 80}[holderMove];
        }
        if (dice < 30) {
            return new StoreOp.Claim(key, who == 7 ? "fp-b" : "fp-a", c.token(), leaseLength, ttl);
        } else if (dice < 34) {
            return lastWon != 0 ? new StoreOp.Claim(key, "fp-a", lastWon, lease, ttl) : new StoreOp.Find(key);
        } else if (dice < 52) {
            return new StoreOp.Complete(key, token, "out-" + label, ttl);
        } else if (dice < 66) {
            return new StoreOp.Release(key, token);
        } else if (dice < 80) {
            return new StoreOp.Checkpoint(key, token, "j-" + label);
        } else if (dice < 92) {
            return new StoreOp.Extend(key, token, leaseLength);
        }
        return new StoreOp.Find(key);
    }
}
