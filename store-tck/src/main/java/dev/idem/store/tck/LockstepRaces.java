package dev.idem.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Races that meet: every party of a round works on the same key and all are released at one
 * instant ({@link Lockstep}). Every call goes into a {@link History} that must be
 * linearizable, and the rules that matter most are also asserted by name: one winner per
 * lease, a stale holder refused once its key was taken over, the taker-over's outcome stored.
 *
 * <p>Only the leases that the test lets lapse are short; every lease a party takes is far
 * longer than the test, so a slow machine cannot turn one race into two.
 */
final class LockstepRaces {
    static final int PARTIES = 6;
    static final int ROUNDS = 4;
    private static final long LONG = KitContext.LONG.toMillis();

    /** What a stale holder does while others try to take its key over. */
    enum StaleMove { COMPLETE, RELEASE, EXTEND }

    private LockstepRaces() {
    }

    /** Claims of one key at one instant, half through each store instance: exactly one wins. */
    static void claimsMeet(KitContext c) throws Exception {
        History h = new History();
        for (int round = 0; round < ROUNDS; round++) {
            IdempotencyKey key = c.key("lockstep-claim-" + round);
            List<String> results = claimRound(c, h, key);
            assertThat(results.stream().filter(LockstepRaces::won)).as("winners of %s: %s", key, results).hasSize(1);
            h.run("main", new StoreOp.Find(key), c.store());
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
        for (int round = 0; round < ROUNDS; round++) {
            IdempotencyKey key = c.key("lockstep-takeover-" + round);
            List<String> results = claimRound(c, h, key);
            assertThat(results.stream().filter(r -> r.startsWith("TAKEN_OVER")))
                    .as("takeovers of %s: %s", key, results).hasSize(1);
            assertThat(results.stream().filter(r -> r.startsWith("ACQUIRED"))).as("%s", results).isEmpty();
            h.run("main", new StoreOp.Find(key), c.store());
        }
        assertLinearizable(h);
    }

    private static List<String> claimRound(KitContext c, History h, IdempotencyKey key) throws Exception {
        List<String> results = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Lockstep.Party> parties = new ArrayList<>();
        for (int i = 0; i < PARTIES; i++) {
            int party = i;
            parties.add(thread -> results.add(h.run(thread,
                    new StoreOp.Claim(key, "fp-a", c.token(), LONG, LONG), c.store(party))));
        }
        Lockstep.run(parties);
        return results;
    }

    /**
     * A holder whose lease lapsed makes {@code moves} with its stale token while two others
     * claim the key and, if they win, complete it, all at one instant. Whatever the order:
     * at most one claim wins; if one took the key over, every stale move was refused and the
     * taker-over's outcome is the one stored; the whole history is linearizable.
     */
    static void staleHolderAgainstTakeover(KitContext c, List<StaleMove> moves, int rounds) throws Exception {
        History h = new History();
        long lease = c.fixture.lease().toMillis();
        List<Long> stale = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            long t = c.token();
            stale.add(t);
            h.run("main", new StoreOp.Claim(c.key("stale-" + round), "fp-a", t, lease, LONG), c.store());
        }
        h.run("main", new StoreOp.Advance(lease, c.fixture), c.store());
        for (int round = 0; round < rounds; round++) {
            IdempotencyKey key = c.key("stale-" + round);
            long staleToken = stale.get(round);
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
                };
                parties.add(thread -> staleResults[move] = h.run(thread, op, c.store(move)));
            }
            for (int t = 0; t < 2; t++) {
                int taker = t;
                parties.add(thread -> {
                    long mine = c.token();
                    claims[taker] = h.run(thread, new StoreOp.Claim(key, "fp-a", mine, LONG, LONG),
                            c.store(taker + 1));
                    if (won(claims[taker])) {
                        completes[taker] = h.run(thread,
                                new StoreOp.Complete(key, mine, "taker-" + taker, LONG), c.store(taker + 1));
                    }
                });
            }
            Lockstep.run(parties);
            String found = h.run("main", new StoreOp.Find(key), c.store());
            String what = String.format("%s: stale %s -> %s, claims %s, completes %s, then %s", key, moves,
                    List.of(staleResults), List.of(claims), java.util.Arrays.asList(completes), found);
            assertThat(java.util.Arrays.stream(claims).filter(LockstepRaces::won)).as(what).hasSizeLessThan(2);
            for (int t = 0; t < 2; t++) {
                if (claims[t].startsWith("TAKEN_OVER")) {
                    assertThat(staleResults).as("stale moves after a takeover, " + what)
                            .allMatch(r -> r.equals("false") || r.equals("refused"));
                    assertThat(completes[t]).as("the taker-over's complete, " + what).isEqualTo("true");
                    assertThat(found).as("the stored outcome, " + what).endsWith("outcome=taker-" + t);
                }
            }
        }
        assertLinearizable(h);
    }

    /**
     * The live holder completes, releases and extends its lease while others claim the key,
     * all at one instant: the history is linearizable and no duplicate wins a live lease.
     */
    static void holderAgainstDuplicates(KitContext c, int rounds) throws Exception {
        History h = new History();
        for (int round = 0; round < rounds; round++) {
            IdempotencyKey key = c.key("holder-" + round);
            long holder = c.token();
            h.run("main", new StoreOp.Claim(key, "fp-a", holder, LONG, LONG), c.store());
            List<StoreOp> moves = List.of(new StoreOp.Complete(key, holder, "holder", LONG),
                    new StoreOp.Release(key, holder), new StoreOp.Extend(key, holder, LONG));
            List<Lockstep.Party> parties = new ArrayList<>();
            for (int m = 0; m < moves.size(); m++) {
                int move = m;
                parties.add(thread -> h.run(thread, moves.get(move), c.store(move)));
            }
            for (int d = 0; d < 2; d++) {
                int dup = d;
                parties.add(thread -> h.run(thread, new StoreOp.Claim(key, "fp-a", c.token(), LONG, LONG),
                        c.store(dup)));
            }
            Lockstep.run(parties);
            h.run("main", new StoreOp.Find(key), c.store());
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
