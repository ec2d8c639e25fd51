package dev.idem.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * The stateful model test: a script of actions by a few workers on two keys (claim, a retry
 * of a claim with the worker's own token, complete, release, checkpoint, extendLease, find,
 * purge, and time passing), each applied to the store and to {@link StoreModel}; after every
 * action every key is read back, step journal included, and compared with the model.
 *
 * <p>Time passes only on a simulated clock ({@link StoreFixture#clockIsSimulated()}): mostly in
 * whole units of at least ten seconds, with leases of one unit (some claims three, longer than
 * the TTL), extensions of half a unit to three and TTLs of two, so leases lapse and records
 * expire exactly on their deadlines; sometimes by a unit less a millisecond, a millisecond or
 * a fraction of a second, so deadlines are also met one millisecond early and off the whole
 * second. On a real clock the time steps do nothing and leases are longer than the test.
 */
final class StoreStateMachine {
    static final int WORKERS = 3;
    static final int KEYS = 2;

    private StoreStateMachine() {
    }

    /** How far an ADVANCE moves, by its {@code units} index: units of logical time, or milliseconds. */
    private static final String[] ADVANCES = {"1u", "2u", "3u", "1u-1ms", "1ms", "317ms"};

    /** One action of a script; {@code units} is the index into the time steps for ADVANCE, the lease kind for CLAIM. */
    record Action(Kind kind, int worker, int key, int fingerprint, boolean foreignToken, int units) {
        /** What the action does. */
        enum Kind { CLAIM, RETRY, COMPLETE, RELEASE, CHECKPOINT, EXTEND, FIND, PURGE, ADVANCE }

        @Override
        public String toString() {
            switch (kind) {
                case ADVANCE:
                    return "ADVANCE(" + ADVANCES[units] + ")";
                case PURGE:
                    return "PURGE";
                case FIND:
                    return "FIND(k" + key + ")";
                case CLAIM:
                    return "CLAIM(w" + worker + ",k" + key + ",fp" + fingerprint + (units == 1 ? ",long lease" : "")
                            + ")";
                default:
                    return kind + "(w" + worker + ",k" + key + (foreignToken ? ",foreign" : "") + ")";
            }
        }
    }

    /** The milliseconds an ADVANCE of index {@code i} moves. */
    private static long advanceMillis(int i, long unit) {
        return switch (i) {
            case 0 -> unit;
            case 1 -> 2 * unit;
            case 2 -> 3 * unit;
            case 3 -> unit - 1;
            case 4 -> 1;
            default -> 317;
        };
    }

    /** Scripts of up to 30 actions, claims and completes most often. */
    static Arbitrary<List<Action>> scripts() {
        Arbitrary<Integer> worker = Arbitraries.integers().between(0, WORKERS - 1);
        Arbitrary<Integer> key = Arbitraries.integers().between(0, KEYS - 1);
        Arbitrary<Integer> fp = Arbitraries.integers().between(0, 4).map(i -> i == 4 ? 1 : 0);
        Arbitrary<Boolean> foreign = Arbitraries.integers().between(0, 2).map(i -> i == 0);
        // One claim in six asks for a lease longer than the TTL.
        Arbitrary<Integer> longLease = Arbitraries.integers().between(0, 5).map(i -> i == 0 ? 1 : 0);
        Arbitrary<Action> claim = Combinators.combine(worker, key, fp, longLease)
                .as((w, k, f, l) -> new Action(Action.Kind.CLAIM, w, k, f, false, l));
        Arbitrary<Action> retry = Combinators.combine(worker, key)
                .as((w, k) -> new Action(Action.Kind.RETRY, w, k, 0, false, 0));
        Arbitrary<Action> complete = Combinators.combine(worker, key, foreign)
                .as((w, k, f) -> new Action(Action.Kind.COMPLETE, w, k, 0, f, 0));
        Arbitrary<Action> release = Combinators.combine(worker, key, foreign)
                .as((w, k, f) -> new Action(Action.Kind.RELEASE, w, k, 0, f, 0));
        Arbitrary<Action> checkpoint = Combinators.combine(worker, key, foreign)
                .as((w, k, f) -> new Action(Action.Kind.CHECKPOINT, w, k, 0, f, 0));
        Arbitrary<Action> extend = Combinators.combine(worker, key, foreign)
                .as((w, k, f) -> new Action(Action.Kind.EXTEND, w, k, 0, f, 0));
        Arbitrary<Action> find = key.map(k -> new Action(Action.Kind.FIND, 0, k, 0, false, 0));
        Arbitrary<Action> purge = Arbitraries.just(new Action(Action.Kind.PURGE, 0, 0, 0, false, 0));
        // Mostly one unit, which lands exactly on the deadlines of the leases and TTLs (whole units);
        // sometimes a millisecond short of one, or a fraction of a second.
        Arbitrary<Action> advance = Arbitraries.frequency(
                        net.jqwik.api.Tuple.of(6, 0), net.jqwik.api.Tuple.of(2, 1), net.jqwik.api.Tuple.of(1, 2),
                        net.jqwik.api.Tuple.of(2, 3), net.jqwik.api.Tuple.of(1, 4), net.jqwik.api.Tuple.of(1, 5))
                .map(u -> new Action(Action.Kind.ADVANCE, 0, 0, 0, false, u));
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(6, claim),
                        net.jqwik.api.Tuple.of(1, retry),
                        net.jqwik.api.Tuple.of(4, complete),
                        net.jqwik.api.Tuple.of(2, release),
                        net.jqwik.api.Tuple.of(2, checkpoint),
                        net.jqwik.api.Tuple.of(2, extend),
                        net.jqwik.api.Tuple.of(1, find),
                        net.jqwik.api.Tuple.of(1, purge),
                        net.jqwik.api.Tuple.of(3, advance))
                .list().ofMinSize(1).ofMaxSize(30);
    }

    /** Runs {@code script} against the fixture's store under {@code scope}, checking every step. */
    static void run(StoreFixture fixture, String scope, List<Action> script, LongSupplier tokens) throws Exception {
        IdempotencyStore store = fixture.store();
        boolean simulated = fixture.clockIsSimulated();
        long unit = Math.max(fixture.lease().toMillis(), Duration.ofSeconds(10).toMillis());
        long lease = simulated ? unit : KitContext.LONG.toMillis();
        long ttl = simulated ? 2 * unit : KitContext.LONG.toMillis();
        List<IdempotencyKey> keys = new ArrayList<>();
        List<StoreModel.State> model = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            keys.add(IdempotencyKey.of(scope, "op", "k" + k));
            model.add(StoreModel.initial());
        }
        // The token each worker last won each key with (0: none yet).
        long[][] lastToken = new long[WORKERS][KEYS];
        long[] holder = new long[KEYS];
        List<List<Long>> winners = List.of(new ArrayList<>(), new ArrayList<>());
        List<String> trace = new ArrayList<>();
        int outcomes = 0;
        for (Action a : script) {
            IdempotencyKey key = keys.get(a.key());
            long mine = lastToken[a.worker()][a.key()];
            // Mostly the key's latest winner acts (the holder); sometimes someone else: an earlier winner, now
            // stale, or a caller who never won.
            List<Long> earlier = winners.get(a.key());
            long token = !a.foreignToken() ? holder[a.key()]
                    : earlier.size() > 1 ? earlier.get(a.worker() % (earlier.size() - 1)) : tokens.getAsLong();
            StoreOp op;
            switch (a.kind()) {
                case CLAIM:
                    op = new StoreOp.Claim(key, "fp-" + a.fingerprint(), tokens.getAsLong(),
                            a.units() == 1 ? 3 * lease : lease, ttl);
                    break;
                case RETRY:
                    op = mine == 0 ? new StoreOp.Find(key) : new StoreOp.Claim(key, "fp-0", mine, lease, ttl);
                    break;
                case COMPLETE:
                    op = new StoreOp.Complete(key, token, scope + "/" + outcomes++, ttl);
                    break;
                case RELEASE:
                    op = new StoreOp.Release(key, token);
                    break;
                case CHECKPOINT:
                    op = new StoreOp.Checkpoint(key, token, "j" + outcomes++);
                    break;
                case EXTEND:
                    // Half a lease (usually shorter than the record's remaining life), one, three.
                    op = new StoreOp.Extend(key, token, a.worker() == 0 ? lease / 2 : lease * (2 * a.worker() - 1));
                    break;
                case FIND:
                    op = new StoreOp.Find(key);
                    break;
                case PURGE: {
                    int purged = store.purgeExpired(10);
                    trace.add("purgeExpired(10) -> " + purged);
                    assertThat(purged).as("purgeExpired(10) after %s", trace).isBetween(0, 10);
                    op = null;
                    break;
                }
                case ADVANCE:
                    op = simulated ? new StoreOp.Advance(advanceMillis(a.units(), unit), fixture) : null;
                    break;
                default:
                    throw new AssertionError(a);
            }
            if (op != null) {
                String seen = op.apply(store);
                trace.add(op + " -> " + seen);
                if (op instanceof StoreOp.Claim c && LockstepRaces.won(seen)) {
                    // A worker goes on with the token it won with; after a takeover that token is stale.
                    lastToken[a.worker()][a.key()] = c.token();
                    holder[a.key()] = c.token();
                    winners.get(a.key()).add(c.token());
                }
                for (int k = 0; k < KEYS; k++) {
                    if (op.key() != null && k != a.key()) {
                        continue;
                    }
                    StoreModel.State next = null;
                    List<String> allowed = new ArrayList<>();
                    for (StoreModel.Next n : StoreModel.step(model.get(k), op)) {
                        allowed.add(n.observation());
                        if (n.observation().equals(seen)) {
                            next = n.state();
                        }
                    }
                    if (next == null) {
                        throw new AssertionError("the store answered " + seen + " where the model allows " + allowed
                                + "\n  script: " + script + "\n  trace: " + String.join("\n         ", trace));
                    }
                    model.set(k, next);
                }
            }
            for (int k = 0; k < KEYS; k++) {
                String found = new StoreOp.Find(keys.get(k)).apply(store);
                String expected = StoreModel.step(model.get(k), new StoreOp.Find(keys.get(k))).get(0).observation();
                if (!found.equals(expected)) {
                    throw new AssertionError("k" + k + " reads " + found + " where the model holds " + expected
                            + "\n  script: " + script + "\n  trace: " + String.join("\n         ", trace));
                }
            }
        }
    }
}
