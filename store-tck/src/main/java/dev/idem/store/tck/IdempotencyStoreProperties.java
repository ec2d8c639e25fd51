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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * The store contract as jqwik properties: random interleavings of claims, completions,
 * releases, lease lapses and duplicates from several workers, each step checked against a
 * reference model of the record life cycle, and concurrent duplicates with random shapes.
 *
 * <p>What the model pins down: a claim wins exactly when the key is free (absent, expired,
 * released) or its lease lapsed under the same fingerprint, so the work can start at most
 * once per lease; a stale token never completes or releases; every replay returns the
 * outcome stored by the holder whose complete succeeded.
 */
public abstract class IdempotencyStoreProperties {
    private StoreFixture fixture;
    private final AtomicLong tokens = new AtomicLong(0xC0FFEE);

    /**
     * Builds the fixture; called once per property.
     *
     * @return a fixture around a fresh store
     * @throws Exception if the backend cannot be reached
     */
    protected abstract StoreFixture createFixture() throws Exception;

    /**
     * How many times one generated script may let time pass. Stores on a real clock sleep
     * for every lapse, so they lower this to keep the run short.
     *
     * @return how many times one generated script may let time pass
     */
    protected int maxClockAdvancesPerScript() {
        return Integer.MAX_VALUE;
    }

    private StoreFixture fixture() throws Exception {
        if (fixture == null) {
            fixture = createFixture();
            if (fixture.clockIsSimulated()) {
                fixture.advance(KitContext.OFF_THE_SECOND);
            }
        }
        return fixture;
    }

    @AfterProperty
    void closeFixture() throws Exception {
        if (fixture != null) {
            fixture.close();
            fixture = null;
        }
    }

    /**
     * The stateful model test: scripts of claims (some with a lease longer than the TTL),
     * own-token retries, completes, releases, checkpoints, lease extensions (shorter and longer
     * than the record's remaining life), reads, purges and time passing (by whole leases and by
     * fractions of a second), every action and every key checked
     * against the reference model after each step (see {@code StoreStateMachine}). Seeded,
     * so every build runs the same scripts.
     *
     * @param script the generated actions
     * @throws Exception if the store fails
     */
    @Property(tries = 40, seed = "20261122")
    void everyActionOfAScriptMatchesTheModel(@ForAll("machineScripts") List<StoreStateMachine.Action> script)
            throws Exception {
        StoreStateMachine.run(fixture(), "machine-" + UUID.randomUUID(), script, tokens::incrementAndGet);
    }

    @Provide
    Arbitrary<List<StoreStateMachine.Action>> machineScripts() {
        return StoreStateMachine.scripts();
    }

    /** One step of a script. */
    public record Step(Kind kind, int worker, int key, int fingerprint) {
        /** Step kinds. */
        public enum Kind {
            /** A worker claims a key. */
            CLAIM,
            /** A worker completes with the token of its last claim. */
            COMPLETE,
            /** A worker releases with the token of its last claim. */
            RELEASE,
            /** The clock moves forward one step unit. */
            LAPSE
        }

        @Override
        public String toString() {
            return kind == Kind.LAPSE ? "LAPSE" : kind + "(w" + worker + ",k" + key + ",fp" + fingerprint + ")";
        }
    }

    @Provide
    Arbitrary<List<Step>> scripts() {
        Arbitrary<Integer> worker = Arbitraries.integers().between(0, 2);
        Arbitrary<Integer> key = Arbitraries.integers().between(0, 1);
        Arbitrary<Integer> fp = Arbitraries.integers().between(0, 4).map(i -> i == 4 ? 1 : 0);
        Arbitrary<Step> claim = net.jqwik.api.Combinators.combine(worker, key, fp)
                .as((w, k, f) -> new Step(Step.Kind.CLAIM, w, k, f));
        Arbitrary<Step> complete = net.jqwik.api.Combinators.combine(worker, key)
                .as((w, k) -> new Step(Step.Kind.COMPLETE, w, k, 0));
        Arbitrary<Step> release = net.jqwik.api.Combinators.combine(worker, key)
                .as((w, k) -> new Step(Step.Kind.RELEASE, w, k, 0));
        Arbitrary<Step> lapse = Arbitraries.just(new Step(Step.Kind.LAPSE, 0, 0, 0));
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(6, claim),
                        net.jqwik.api.Tuple.of(4, complete),
                        net.jqwik.api.Tuple.of(2, release),
                        net.jqwik.api.Tuple.of(1, lapse))
                .list().ofMinSize(1).ofMaxSize(30);
    }

    private static final class ModelRecord {
        RecordState state;
        int fingerprint;
        long holder;
        int attempt;
        long leaseUntil;
        long expiresAt;
        byte[] outcome;
    }

    @Property(tries = 40)
    void interleavedStepsFollowTheModel(@ForAll("scripts") List<Step> script) throws Exception {
        StoreFixture fx = fixture();
        IdempotencyStore store = fx.store();
        String scope = "prop-" + UUID.randomUUID();
        long leaseUnits = fx.lease().toMillis();
        long ttlUnits = fx.ttl().toMillis();
        long stepUnits = fx.lease().plus(fx.slack()).toMillis();
        long now = 0;
        int advances = 0;
        Map<Integer, ModelRecord> model = new HashMap<>();
        Map<String, Long> workerTokens = new HashMap<>();
        int outcomes = 0;

        for (Step step : script) {
            IdempotencyKey key = IdempotencyKey.of(scope, "op", "k" + step.key());
            ModelRecord m = model.get(step.key());
            if (m != null && now >= m.expiresAt) {
                model.remove(step.key());
                m = null;
            }
            String who = step.worker() + "/" + step.key();
            switch (step.kind()) {
                case LAPSE:
                    if (advances++ < maxClockAdvancesPerScript()) {
                        fx.advance(Duration.ofMillis(stepUnits));
                        now += stepUnits;
                    }
                    break;
                case CLAIM: {
                    long token = tokens.incrementAndGet();
                    ClaimResult r = store.claim(key, fp(step.fingerprint()), token, fx.lease(), fx.ttl());
                    Status expected;
                    if (m == null || m.state == RecordState.RELEASED) {
                        expected = Status.ACQUIRED;
                    } else if (m.state == RecordState.IN_PROGRESS && now >= m.leaseUntil
                            && m.fingerprint == step.fingerprint()) {
                        expected = Status.TAKEN_OVER;
                    } else {
                        expected = Status.EXISTING;
                    }
                    assertThat(r.status()).as("%s in %s", step, script).isEqualTo(expected);
                    if (expected == Status.EXISTING) {
                        assertMatches(r.record(), m, script);
                    } else {
                        int attempt = m == null ? 1 : m.attempt + 1;
                        assertThat(r.record().attempt()).as("attempt after %s in %s", step, script).isEqualTo(attempt);
                        ModelRecord mine = new ModelRecord();
                        mine.state = RecordState.IN_PROGRESS;
                        mine.fingerprint = step.fingerprint();
                        mine.holder = token;
                        mine.attempt = attempt;
                        mine.leaseUntil = now + leaseUnits;
                        mine.expiresAt = now + Math.max(ttlUnits, leaseUnits);
                        model.put(step.key(), mine);
                        workerTokens.put(who, token);
                    }
                    break;
                }
                case COMPLETE: {
                    Long token = workerTokens.get(who);
                    if (token == null) {
                        break;
                    }
                    byte[] outcome = ("outcome-" + (outcomes++)).getBytes(StandardCharsets.UTF_8);
                    boolean ok = store.complete(key, token, outcome, fx.ttl());
                    boolean expected = m != null && m.holder == token
                            && (m.state == RecordState.IN_PROGRESS || m.state == RecordState.COMPLETED);
                    assertThat(ok).as("%s in %s", step, script).isEqualTo(expected);
                    if (ok && m.state == RecordState.IN_PROGRESS) {
                        m.state = RecordState.COMPLETED;
                        m.outcome = outcome;
                        m.expiresAt = now + ttlUnits;
                    }
                    break;
                }
                case RELEASE: {
                    Long token = workerTokens.get(who);
                    if (token == null) {
                        break;
                    }
                    boolean ok = store.release(key, token);
                    // A repeated release with the holder's own token is acknowledged again (SPI v2).
                    boolean expected = m != null && m.holder == token
                            && (m.state == RecordState.IN_PROGRESS || m.state == RecordState.RELEASED);
                    assertThat(ok).as("%s in %s", step, script).isEqualTo(expected);
                    if (ok) {
                        m.state = RecordState.RELEASED;
                    }
                    break;
                }
                default:
                    throw new AssertionError(step);
            }
            for (int k = 0; k < 2; k++) {
                ModelRecord mk = model.get(k);
                if (mk != null && now >= mk.expiresAt) {
                    model.remove(k);
                    mk = null;
                }
                Optional<StoredRecord> found = store.find(IdempotencyKey.of(scope, "op", "k" + k));
                if (mk == null) {
                    assertThat(found).as("k%d after %s in %s", k, step, script).isEmpty();
                } else {
                    assertThat(found).as("k%d after %s in %s", k, step, script).isPresent();
                    assertMatches(found.get(), mk, script);
                }
            }
        }
    }

    private static void assertMatches(StoredRecord actual, ModelRecord m, List<Step> script) {
        assertThat(actual.state()).as("state in %s", script).isEqualTo(m.state);
        assertThat(actual.fingerprint()).as("fingerprint in %s", script).isEqualTo(fp(m.fingerprint));
        assertThat(actual.attempt()).as("attempt in %s", script).isEqualTo(m.attempt);
        if (m.state == RecordState.COMPLETED) {
            assertThat(actual.outcome()).as("replayed outcome in %s", script).isEqualTo(m.outcome);
            assertThat(actual.fencingToken()).isEqualTo(m.holder);
        }
        if (m.state == RecordState.IN_PROGRESS) {
            assertThat(actual.fencingToken()).as("holder in %s", script).isEqualTo(m.holder);
        }
    }

    private static byte[] fp(int n) {
        return ("fingerprint-" + n).getBytes(StandardCharsets.UTF_8);
    }

    @Property(tries = 10)
    void concurrentDuplicatesHaveOneWinnerPerKey(
            @ForAll @IntRange(min = 2, max = 12) int threads,
            @ForAll @IntRange(min = 1, max = 4) int keys) throws Exception {
        StoreFixture fx = fixture();
        String scope = "race-" + UUID.randomUUID();
        List<List<ClaimResult>> perKey = Races.run(threads, keys, (thread, k) -> {
            IdempotencyStore s = thread % 2 == 0 ? fx.store() : fx.otherStore();
            return s.claim(IdempotencyKey.of(scope, "op", "k" + k), fp(0), tokens.incrementAndGet(),
                    fx.lease(), fx.ttl());
        });
        for (List<ClaimResult> results : perKey) {
            assertThat(results).hasSize(threads);
            assertThat(results.stream().filter(ClaimResult::claimed)).hasSize(1);
        }
    }
}
