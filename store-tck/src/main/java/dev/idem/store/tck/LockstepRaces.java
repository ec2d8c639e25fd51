package dev.idem.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Races that meet: every party of a round works on the same key and all are released at one
 * instant by a {@link Lockstep} crew, for many rounds. Every call goes into a {@link History}
 * that must be linearizable, and the rules that matter most are also asserted by name: one
 * winner per lease, a stale holder refused once its key was taken over, the taker-over's
 * outcome stored, no duplicate told of a released record.
 *
 * <p>Only the leases that the test lets lapse are short; every lease a party takes is far
 * longer than the test, so a slow machine cannot turn one race into two. Each test is built
 * to catch one kind of non-atomic operation on its own, by the number of its rounds: a
 * window as short as a thread yield between a store's read and its write is hit in a good
 * share of the rounds, so it is hit in every run.
 */
final class LockstepRaces {
    /** Rounds of each race; a round on the in-memory store costs microseconds, on a server one round trip. */
    static final int ROUNDS = 48;
    private static final int CLAIMERS = 4;
    private static final long LONG = KitContext.LONG.toMillis();

    /** What a stale holder does while others try to take its key over. */
    enum StaleMove { COMPLETE, RELEASE, EXTEND, CHECKPOINT }

    private LockstepRaces() {
    }

    /** Claims of one key at one instant, half through each store instance: exactly one wins. */
    static void claimsMeet(KitContext c) throws Exception {
        History h = new History();
        try (Lockstep crew = new Lockstep(CLAIMERS, 11)) {
            for (int round = 0; round < ROUNDS; round++) {
                IdempotencyKey key = c.key("lockstep-claim-" + round);
                List<String> results = claimRound(c, crew, h, key);
                assertThat(results.stream().filter(LockstepRaces::won)).as("winners of %s: %s", key, results)
                        .hasSize(1);
                h.run("main", new StoreOp.Find(key), c.store());
            }
        }
        assertLinearizable(h);
    }

    /** Claims of one lapsed lease at one instant: exactly one takes it over, none acquires. */
    static void takeoversMeet(KitContext c) throws Exception {
        History h = new History();
        long lease = c.fixture.lease().toMillis();
        for (int round = 0; round < ROUNDS; round++) {
            h.run("main", new StoreOp.Claim(c.key("lockstep-takeover-" + round), "fp-a", c.token(), lease, LONG),
                    c.store());
        }
        h.run("main", new StoreOp.Advance(lease, c.fixture), c.store());
        try (Lockstep crew = new Lockstep(CLAIMERS, 12)) {
            for (int round = 0; round < ROUNDS; round++) {
                IdempotencyKey key = c.key("lockstep-takeover-" + round);
                List<String> results = claimRound(c, crew, h, key);
                assertThat(results.stream().filter(r -> r.startsWith("TAKEN_OVER")))
                        .as("takeovers of %s: %s", key, results).hasSize(1);
                assertThat(results.stream().filter(r -> r.startsWith("ACQUIRED"))).as("%s", results).isEmpty();
                h.run("main", new StoreOp.Find(key), c.store());
            }
        }
        assertLinearizable(h);
    }

    private static List<String> claimRound(KitContext c, Lockstep crew, History h, IdempotencyKey key)
            throws Exception {
        List<String> results = Collections.synchronizedList(new ArrayList<>());
        List<Lockstep.Party> parties = new ArrayList<>();
        for (int i = 0; i < CLAIMERS; i++) {
            int party = i;
            long token = c.token();
            parties.add(thread -> results.add(h.run(thread,
                    new StoreOp.Claim(key, "fp-a", token, LONG, LONG), c.store(party))));
        }
        crew.round(parties);
        return results;
    }

    /**
     * A holder whose lease lapsed makes {@code moves} with its stale token while two others
     * claim the key and, if they win, complete it, all at one instant. Whatever the order:
     * at most one claim wins; if one took the key over, every stale complete, release and
     * extension was refused, a stale checkpoint that succeeded is the journal the takeover
     * found, the taker-over's complete succeeded and its outcome is the one stored; the whole
     * history is linearizable.
     */
    static void staleHolderAgainstTakeover(KitContext c, List<StaleMove> moves, int rounds) throws Exception {
        History h = new History();
        long lease = c.fixture.lease().toMillis();
        List<Long> stale = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            long t = c.token();
            stale.add(t);
            IdempotencyKey key = c.key("stale-" + round);
            h.run("main", new StoreOp.Claim(key, "fp-a", t, lease, LONG), c.store());
            h.run("main", new StoreOp.Checkpoint(key, t, "before"), c.store());
        }
        h.run("main", new StoreOp.Advance(lease, c.fixture), c.store());
        try (Lockstep crew = new Lockstep(moves.size() + 2, 13 + moves.size())) {
            for (int round = 0; round < rounds; round++) {
                staleRound(c, crew, h, moves, c.key("stale-" + round), stale.get(round));
            }
        }
        assertLinearizable(h);
    }

    private static void staleRound(KitContext c, Lockstep crew, History h, List<StaleMove> moves,
            IdempotencyKey key, long staleToken) throws Exception {
        String[] staleResults = new String[moves.size()];
        String[] claims = new String[2];
        String[] completes = new String[2];
        List<Lockstep.Party> parties = new ArrayList<>();
        for (int m = 0; m < moves.size(); m++) {
            int move = m;
            StoreOp op = switch (moves.get(m)) {
                case COMPLETE -> new StoreOp.Complete(key, staleToken, "stale", LONG);
                case RELEASE -> new StoreOp.Release(key, staleToken);
                case EXTEND -> new StoreOp.Extend(key, staleToken, LONG);
                case CHECKPOINT -> new StoreOp.Checkpoint(key, staleToken, "stale");
            };
            parties.add(thread -> staleResults[move] = h.run(thread, op, c.store(move)));
        }
        for (int t = 0; t < 2; t++) {
            int taker = t;
            long mine = c.token();
            parties.add(thread -> {
                claims[taker] = h.run(thread, new StoreOp.Claim(key, "fp-a", mine, LONG, LONG), c.store(taker + 1));
                if (won(claims[taker])) {
                    completes[taker] = h.run(thread,
                            new StoreOp.Complete(key, mine, "taker-" + taker, LONG), c.store(taker + 1));
                }
            });
        }
        crew.round(parties);
        String found = h.run("main", new StoreOp.Find(key), c.store());
        String what = String.format("%s: stale %s -> %s, claims %s, completes %s, then %s", key, moves,
                List.of(staleResults), List.of(claims), Arrays.asList(completes), found);
        assertThat(Arrays.stream(claims).filter(LockstepRaces::won)).as(what).hasSizeLessThan(2);
        for (int t = 0; t < 2; t++) {
            if (!claims[t].startsWith("TAKEN_OVER")) {
                continue;
            }
            for (int m = 0; m < moves.size(); m++) {
                if (moves.get(m) == StaleMove.CHECKPOINT) {
                    String journal = staleResults[m].equals("true") ? "journal=stale" : "journal=before";
                    assertThat(claims[t]).as("the journal the takeover found, " + what).endsWith(journal);
                } else {
                    assertThat(staleResults[m]).as("stale %s after a takeover, %s", moves.get(m), what)
                            .isIn("false", "refused");
                }
            }
            assertThat(completes[t]).as("the taker-over's complete, " + what).isEqualTo("true");
            assertThat(found).as("the stored outcome, " + what).endsWith("outcome=taker-" + t);
        }
    }

    /**
     * The live holder completes, releases, checkpoints and extends its lease while others claim
     * the key, all at one instant: the history is linearizable and no duplicate wins a live lease.
     */
    static void holderAgainstDuplicates(KitContext c, int rounds) throws Exception {
        History h = new History();
        try (Lockstep crew = new Lockstep(6, 17)) {
            for (int round = 0; round < rounds; round++) {
                IdempotencyKey key = c.key("holder-" + round);
                long holder = c.token();
                h.run("main", new StoreOp.Claim(key, "fp-a", holder, LONG, LONG), c.store());
                List<StoreOp> moves = List.of(new StoreOp.Complete(key, holder, "holder", LONG),
                        new StoreOp.Release(key, holder), new StoreOp.Checkpoint(key, holder, "holder"),
                        new StoreOp.Extend(key, holder, LONG));
                List<Lockstep.Party> parties = new ArrayList<>();
                for (int m = 0; m < moves.size(); m++) {
                    int move = m;
                    parties.add(thread -> h.run(thread, moves.get(move), c.store(move)));
                }
                for (int d = 0; d < 2; d++) {
                    int dup = d;
                    long token = c.token();
                    parties.add(thread -> h.run(thread, new StoreOp.Claim(key, "fp-a", token, LONG, LONG),
                            c.store(dup)));
                }
                crew.round(parties);
                h.run("main", new StoreOp.Find(key), c.store());
            }
        }
        assertLinearizable(h);
    }

    /**
     * The holder releases while duplicates claim, at one instant: a duplicate either meets the
     * holder's record (EXISTING, IN_PROGRESS) or wins the released key, and at most one wins;
     * none is ever answered with the RELEASED record, which a claim that read the record once,
     * atomically with its decision, cannot see.
     */
    static void duplicatesRacingARelease(KitContext c) throws Exception {
        History h = new History();
        try (Lockstep crew = new Lockstep(3, 19)) {
            for (int round = 0; round < ROUNDS; round++) {
                IdempotencyKey key = c.key("release-dups-" + round);
                long holder = c.token();
                h.run("main", new StoreOp.Claim(key, "fp-a", holder, LONG, LONG), c.store());
                h.run("main", new StoreOp.Checkpoint(key, holder, "step-1"), c.store());
                String[] claims = new String[2];
                String[] released = new String[1];
                List<Lockstep.Party> parties = new ArrayList<>();
                parties.add(thread -> released[0] = h.run(thread, new StoreOp.Release(key, holder), c.store()));
                for (int d = 0; d < 2; d++) {
                    int dup = d;
                    long token = c.token();
                    parties.add(thread -> claims[dup] = h.run(thread,
                            new StoreOp.Claim(key, dup == 0 ? "fp-a" : "fp-b", token, LONG, LONG),
                            c.store(dup + 1)));
                }
                crew.round(parties);
                String what = String.format("%s: release -> %s, claims %s", key, released[0], List.of(claims));
                assertThat(released[0]).as(what).isEqualTo("true");
                assertThat(claims).as("no claim may be answered with a released record, " + what)
                        .noneMatch(r -> r.startsWith("EXISTING RELEASED"));
                assertThat(Arrays.stream(claims).filter(LockstepRaces::won)).as(what).hasSizeLessThan(2);
                h.run("main", new StoreOp.Find(key), c.store());
            }
        }
        assertLinearizable(h);
    }

    static boolean won(String claimObservation) {
        return claimObservation != null
                && (claimObservation.startsWith("ACQUIRED") || claimObservation.startsWith("TAKEN_OVER"));
    }

    static void assertLinearizable(History h) {
        Optional<String> violation = LinearizabilityChecker.check(h.entries());
        if (violation.isPresent()) {
            throw new AssertionError(violation.get());
        }
    }
}
