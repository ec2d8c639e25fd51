package dev.idem.store.tck;

import dev.idem.api.IdempotencyKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Random concurrent workloads recorded as histories and checked for linearizability
 * against {@link StoreModel}: several threads on two store instances sharing one backend,
 * a few keys, claims (including a retry with the caller's own token), completes, releases,
 * lease extensions and reads with current and stale tokens, and, on a simulated clock,
 * time passing between phases so that leases lapse and records expire.
 *
 * <p>Seeded: each thread draws its moves from its own generator, so a run is reproducible up
 * to the order in which the store serializes racing calls.
 */
final class ConcurrentHistories {
    static final int THREADS = 4;
    static final int KEYS = 2;
    static final int PHASES = 6;
    static final int OPS_PER_PHASE = 6;

    private ConcurrentHistories() {
    }

    /** Runs one seeded workload and fails with the offending key's history if it is not linearizable. */
    static void run(KitContext c, long seed) throws Exception {
        boolean timePasses = c.fixture.clockIsSimulated();
        // One unit of logical time; leases and TTLs are whole units so that a real clock
        // running alongside a moved one cannot put a call on the wrong side of a deadline.
        long unit = Math.max(c.fixture.lease().toMillis(), Duration.ofSeconds(10).toMillis());
        long lease = timePasses ? unit : KitContext.LONG.toMillis();
        long ttl = timePasses ? 2 * unit : KitContext.LONG.toMillis();
        Random phases = new Random(seed);
        List<IdempotencyKey> keys = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            keys.add(c.key("history-" + seed + "-" + k));
        }
        List<List<Long>> issued = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            issued.add(new CopyOnWriteArrayList<>());
        }
        History h = new History();
        long[][] lastToken = new long[THREADS][KEYS];
        for (int phase = 0; phase < PHASES; phase++) {
            List<Lockstep.Party> parties = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                Random rnd = new Random(seed * 31 + phase * 7919L + t);
                parties.add(name -> {
                    for (int i = 0; i < OPS_PER_PHASE; i++) {
                        int k = rnd.nextInt(KEYS);
                        IdempotencyKey key = keys.get(k);
                        long mine = lastToken[thread][k];
                        List<Long> known = issued.get(k);
                        long any = known.isEmpty() ? c.token() : known.get(rnd.nextInt(known.size()));
                        int dice = rnd.nextInt(100);
                        StoreOp op;
                        if (dice < 30) {
                            long token = c.token();
                            known.add(token);
                            lastToken[thread][k] = token;
                            op = new StoreOp.Claim(key, rnd.nextInt(5) == 0 ? "fp-b" : "fp-a", token, lease, ttl);
                        } else if (dice < 36 && mine != 0) {
                            op = new StoreOp.Claim(key, "fp-a", mine, lease, ttl);
                        } else if (dice < 60) {
                            op = new StoreOp.Complete(key, rnd.nextInt(4) == 0 ? any : mine,
                                    "out-" + name + "-" + i, ttl);
                        } else if (dice < 74) {
                            op = new StoreOp.Release(key, rnd.nextInt(4) == 0 ? any : mine);
                        } else if (dice < 84) {
                            op = new StoreOp.Extend(key, rnd.nextInt(4) == 0 ? any : mine, lease);
                        } else {
                            op = new StoreOp.Find(key);
                        }
                        h.run("thread-" + thread, op, c.store(thread));
                    }
                });
            }
            // The threads' private generators are made before the race, so the race itself draws nothing shared.
            Lockstep.run("tck-history-", parties);
            if (timePasses && phases.nextInt(3) > 0) {
                h.run("main", new StoreOp.Advance(unit * (1 + phases.nextInt(2)), c.fixture), c.store());
            }
        }
        for (IdempotencyKey key : keys) {
            h.run("main", new StoreOp.Find(key), c.store());
        }
        LockstepRaces.assertLinearizable(h);
    }
}
