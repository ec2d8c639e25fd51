package dev.idem.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Races that meet: every party of a round works on the same key and all are released at one
 * instant by a {@link Lockstep} crew, round after round. Every call goes into a {@link History}
 * that must be linearizable, and the rules that matter most are also asserted by name: one
 * winner per lease, a stale holder refused once its key was taken over, the taker-over's
 * outcome stored, no duplicate told of a released record.
 *
 * <p>Only the leases that the test lets lapse are short; every lease a party takes is far
 * longer than the test, so a slow machine cannot turn one race into two. Each test is built
 * to catch one kind of non-atomic operation on its own, by the number of rounds in which its
 * parties really met ({@link Meetings}): a window as short as a thread yield between a store's
 * read and its write is hit in a good share of those, so it is hit in every run. A loaded
 * machine, on which the scheduler often runs one party's call to its end before the next party
 * gets a CPU, runs more rounds until as many have met.
 */
final class LockstepRaces {
    /** Rounds of each race in which the racing parties met; a round in memory costs microseconds, on a server a round trip. */
    static final int MEETINGS = 48;
    private static final int CLAIMERS = 4;
    private static final long LONG = KitContext.LONG.toMillis();

    /** What a stale holder does while others try to take its key over. */
    enum StaleMove { COMPLETE, RELEASE, EXTEND, CHECKPOINT }

    private LockstepRaces() {
    }

    /** Claims of one key at one instant, half through each store instance: exactly one wins. */
    static void claimsMeet(KitContext c) throws Exception {
        History h = new History();
        Meetings meetings = new Meetings("claims of one key", MEETINGS);
        try (Lockstep crew = new Lockstep(CLAIMERS, 11)) {
            for (int round = 0; meetings.more(); round++) {
                IdempotencyKey key = c.key("lockstep-claim-" + round);
                List<History.Entry> claims = claimRound(c, crew, h, key);
                List<String> results = observations(claims);
                assertThat(results.stream().filter(LockstepRaces::won)).as("winners of %s: %s", key, results)
                        .hasSize(1);
                h.run("main", new StoreOp.Find(key), c.store());
                meetings.count(Meetings.anyOverlap(claims, claims));
            }
        }
        assertLinearizable(h);
    }

    /** Claims of one lapsed lease at one instant: exactly one takes it over, none acquires. */
    static void takeoversMeet(KitContext c) throws Exception {
        History h = new History();
        long lease = c.fixture.lease().toMillis();
        Meetings meetings = new Meetings("takeovers of one lapsed lease", MEETINGS);
        try (Lockstep crew = new Lockstep(CLAIMERS, 12)) {
            for (int round = 0; meetings.more(); round++) {
                if (round % MEETINGS == 0) {
                    // A batch of keys whose leases lapse together: one wait on a clock that really waits.
                    for (int k = round; k < round + MEETINGS; k++) {
                        h.run("main", new StoreOp.Claim(c.key("lockstep-takeover-" + k), "fp-a", c.token(), lease,
                                LONG), c.store());
                    }
                    h.run("main", new StoreOp.Advance(lease, c.fixture), c.store());
                }
                IdempotencyKey key = c.key("lockstep-takeover-" + round);
                List<History.Entry> claims = claimRound(c, crew, h, key);
                List<String> results = observations(claims);
                assertThat(results.stream().filter(r -> r.startsWith("TAKEN_OVER")))
                        .as("takeovers of %s: %s", key, results).hasSize(1);
                assertThat(results.stream().filter(r -> r.startsWith("ACQUIRED"))).as("%s", results).isEmpty();
                h.run("main", new StoreOp.Find(key), c.store());
                meetings.count(Meetings.anyOverlap(claims, claims));
            }
        }
        assertLinearizable(h);
    }

    private static List<History.Entry> claimRound(KitContext c, Lockstep crew, History h, IdempotencyKey key)
            throws Exception {
        History.Entry[] claims = new History.Entry[CLAIMERS];
        List<Lockstep.Party> parties = new ArrayList<>();
        for (int i = 0; i < CLAIMERS; i++) {
            int party = i;
            long token = c.token();
            parties.add(thread -> claims[party] = h.call(thread,
                    new StoreOp.Claim(key, "fp-a", token, LONG, LONG), c.store(party)));
        }
        crew.round(parties);
        return Arrays.asList(claims);
    }

    private static List<String> observations(List<History.Entry> entries) {
        return entries.stream().map(e -> e == null ? null : e.observation()).toList();
    }

    /**
     * A holder whose lease lapsed makes {@code moves} with its stale token while two others
     * claim the key and, if they win, complete it, all at one instant, until a stale move and a
     * claim met in {@code meetings} rounds. Whatever the order: at most one claim wins; if one
     * took the key over, every stale complete, release and extension was refused, a stale
     * checkpoint that succeeded is the journal the takeover found, the taker-over's complete
     * succeeded and its outcome is the one stored; the whole history is linearizable.
     */
    static void staleHolderAgainstTakeover(KitContext c, List<StaleMove> moves, int meetings) throws Exception {
        History h = new History();
        long lease = c.fixture.lease().toMillis();
        List<Long> stale = new ArrayList<>();
        Meetings met = new Meetings("stale " + moves + " against a takeover", meetings);
        try (Lockstep crew = new Lockstep(moves.size() + 2, 13 + moves.size())) {
            for (int round = 0; met.more(); round++) {
                if (round % meetings == 0) {
                    // A batch of keys whose leases lapse together: one wait on a clock that really waits.
                    for (int k = round; k < round + meetings; k++) {
                        long t = c.token();
                        stale.add(t);
                        IdempotencyKey key = c.key("stale-" + k);
                        h.run("main", new StoreOp.Claim(key, "fp-a", t, lease, LONG), c.store());
                        h.run("main", new StoreOp.Checkpoint(key, t, "before"), c.store());
                    }
                    h.run("main", new StoreOp.Advance(lease, c.fixture), c.store());
                }
                met.count(staleRound(c, crew, h, moves, c.key("stale-" + round), stale.get(round)));
            }
        }
        assertLinearizable(h);
    }

    /** One round of {@link #staleHolderAgainstTakeover}; returns whether a stale move and a claim met. */
    private static boolean staleRound(KitContext c, Lockstep crew, History h, List<StaleMove> moves,
            IdempotencyKey key, long staleToken) throws Exception {
        History.Entry[] staleCalls = new History.Entry[moves.size()];
        History.Entry[] claimCalls = new History.Entry[2];
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
            parties.add(thread -> staleCalls[move] = h.call(thread, op, c.store(move)));
        }
        for (int t = 0; t < 2; t++) {
            int taker = t;
            long mine = c.token();
            parties.add(thread -> {
                claimCalls[taker] = h.call(thread, new StoreOp.Claim(key, "fp-a", mine, LONG, LONG),
                        c.store(taker + 1));
                if (won(claimCalls[taker].observation())) {
                    completes[taker] = h.run(thread,
                            new StoreOp.Complete(key, mine, "taker-" + taker, LONG), c.store(taker + 1));
                }
            });
        }
        crew.round(parties, sides(moves.size(), 2));
        String found = h.run("main", new StoreOp.Find(key), c.store());
        List<String> staleResults = observations(Arrays.asList(staleCalls));
        List<String> claims = observations(Arrays.asList(claimCalls));
        String what = String.format("%s: stale %s -> %s, claims %s, completes %s, then %s", key, moves,
                staleResults, claims, Arrays.asList(completes), found);
        assertThat(claims.stream().filter(LockstepRaces::won)).as(what).hasSizeLessThan(2);
        for (int t = 0; t < 2; t++) {
            if (!claims.get(t).startsWith("TAKEN_OVER")) {
                continue;
            }
            for (int m = 0; m < moves.size(); m++) {
                if (moves.get(m) == StaleMove.CHECKPOINT) {
                    String journal = staleResults.get(m).equals("true") ? "journal=stale" : "journal=before";
                    assertThat(claims.get(t)).as("the journal the takeover found, " + what).endsWith(journal);
                } else {
                    assertThat(staleResults.get(m)).as("stale %s after a takeover, %s", moves.get(m), what)
                            .isIn("false", "refused");
                }
            }
            assertThat(completes[t]).as("the taker-over's complete, " + what).isEqualTo("true");
            assertThat(found).as("the stored outcome, " + what).endsWith("outcome=taker-" + t);
        }
        return Meetings.anyOverlap(Arrays.asList(staleCalls), Arrays.asList(claimCalls));
    }

    /**
     * The live holder completes, releases, checkpoints and extends its lease while others claim
     * the key, all at one instant, until a move and a claim met in {@code meetings} rounds: the
     * history is linearizable and no duplicate wins a live lease.
     */
    static void holderAgainstDuplicates(KitContext c, int meetings) throws Exception {
        History h = new History();
        Meetings met = new Meetings("the holder's moves against duplicates", meetings);
        try (Lockstep crew = new Lockstep(6, 17)) {
            for (int round = 0; met.more(); round++) {
                IdempotencyKey key = c.key("holder-" + round);
                long holder = c.token();
                h.run("main", new StoreOp.Claim(key, "fp-a", holder, LONG, LONG), c.store());
                List<StoreOp> moves = List.of(new StoreOp.Complete(key, holder, "holder", LONG),
                        new StoreOp.Release(key, holder), new StoreOp.Checkpoint(key, holder, "holder"),
                        new StoreOp.Extend(key, holder, LONG));
                History.Entry[] moveCalls = new History.Entry[moves.size()];
                History.Entry[] dupCalls = new History.Entry[2];
                List<Lockstep.Party> parties = new ArrayList<>();
                for (int m = 0; m < moves.size(); m++) {
                    int move = m;
                    parties.add(thread -> moveCalls[move] = h.call(thread, moves.get(move), c.store(move)));
                }
                for (int d = 0; d < 2; d++) {
                    int dup = d;
                    long token = c.token();
                    parties.add(thread -> dupCalls[dup] = h.call(thread,
                            new StoreOp.Claim(key, "fp-a", token, LONG, LONG), c.store(dup)));
                }
                crew.round(parties, sides(moves.size(), 2));
                h.run("main", new StoreOp.Find(key), c.store());
                met.count(Meetings.anyOverlap(Arrays.asList(moveCalls), Arrays.asList(dupCalls)));
            }
        }
        assertLinearizable(h);
    }

    /**
     * The holder releases while duplicates claim, at one instant, until the release and a claim
     * met in {@link #MEETINGS} rounds: a duplicate either meets the holder's record (EXISTING,
     * IN_PROGRESS) or wins the released key, and at most one wins; none is ever answered with
     * the RELEASED record, which a claim that read the record once, atomically with its
     * decision, cannot see.
     */
    static void duplicatesRacingARelease(KitContext c) throws Exception {
        History h = new History();
        Meetings met = new Meetings("duplicates against a release", MEETINGS);
        try (Lockstep crew = new Lockstep(3, 19)) {
            for (int round = 0; met.more(); round++) {
                IdempotencyKey key = c.key("release-dups-" + round);
                long holder = c.token();
                h.run("main", new StoreOp.Claim(key, "fp-a", holder, LONG, LONG), c.store());
                h.run("main", new StoreOp.Checkpoint(key, holder, "step-1"), c.store());
                History.Entry[] claimCalls = new History.Entry[2];
                History.Entry[] released = new History.Entry[1];
                List<Lockstep.Party> parties = new ArrayList<>();
                parties.add(thread -> released[0] = h.call(thread, new StoreOp.Release(key, holder), c.store()));
                for (int d = 0; d < 2; d++) {
                    int dup = d;
                    long token = c.token();
                    parties.add(thread -> claimCalls[dup] = h.call(thread,
                            new StoreOp.Claim(key, dup == 0 ? "fp-a" : "fp-b", token, LONG, LONG),
                            c.store(dup + 1)));
                }
                crew.round(parties, sides(1, 2));
                List<String> claims = observations(Arrays.asList(claimCalls));
                String what = String.format("%s: release -> %s, claims %s", key, released[0].observation(), claims);
                assertThat(released[0].observation()).as(what).isEqualTo("true");
                assertThat(claims).as("no claim may be answered with a released record, " + what)
                        .noneMatch(r -> r.startsWith("EXISTING RELEASED"));
                assertThat(claims.stream().filter(LockstepRaces::won)).as(what).hasSizeLessThan(2);
                h.run("main", new StoreOp.Find(key), c.store());
                met.count(Meetings.anyOverlap(Arrays.asList(released), Arrays.asList(claimCalls)));
            }
        }
        assertLinearizable(h);
    }

    /** The sides of a round: {@code first} parties on one, then {@code second} on the other. */
    private static int[] sides(int first, int second) {
        int[] sides = new int[first + second];
        Arrays.fill(sides, first, first + second, 1);
        return sides;
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
