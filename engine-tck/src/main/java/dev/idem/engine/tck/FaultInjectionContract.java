package dev.idem.engine.tck;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.tck.FaultCampaign.Clocks;
import dev.idem.engine.tck.FaultCampaign.Deadlines;
import dev.idem.engine.tck.FaultCampaign.Script;
import dev.idem.store.tck.StoreFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Systematic fault injection: the engine over the store under test, with one store call failed
 * at a time. Each script (plain work, work retried after a transient failure, a final failure,
 * three steps with a lease heartbeat, steps retried after a transient failure, an atomic step,
 * work that completes itself) runs as a client would run it, retrying until the key settles;
 * its first worker's N-th store call (claim, checkpoint, complete, release, extend or find) is
 * failed, for each N in turn and each fault:
 * <ul>
 *   <li>a transient store error, and a permanent one (nothing reached the store);</li>
 *   <li>a timeout whose call landed;</li>
 *   <li>a lease lapse just before the call; a lapse and a takeover by a competitor that
 *       finishes the work, just before or just after the call;</li>
 *   <li>a crash of the worker just before or just after the call, its connection cut first,
 *       so that it releases nothing.</li>
 * </ul>
 * Every script also runs with the engines' wall clock 5 to 25 s ahead of and behind the store's
 * (under the faults where the engine judges a lease: a lapse, a takeover after the call, a dead
 * claim), and with it stepped an hour back and forth while the engines wait for a held key
 * (under the faults that leave one held: a permanent failure, a crash). And every script runs
 * with a deadline on each call, half a lease, as a client's {@code X-Request-Timeout} gives one,
 * and work that takes a little longer (under the faults where time passes mid-call or a claim is
 * left to lapse): the deadline runs out during the work, so the completion comes after it, and
 * during the claim under a lapse; it shortens the claims' leases, so a crashed worker's key must
 * free within that shorter lease. The asynchronous call ({@code executeAsync}, on the store's blocking
 * operations) runs with such deadlines too.
 *
 * <p>Every worker's engine has a near cache, so a worker that calls again after a refused completion
 * must answer what the store holds, not what its cache took.
 *
 * <p>After each run, from outside the engine: no work started after its caller's deadline had
 * passed (a claim won too late is given back unrun); every effect reached the downstream system at most
 * once, except the one effect a fault left to run again, documented as such (a step whose
 * journal write was lost with its worker, refused for good or outrun by a takeover; plain work
 * taken over from under its worker), which ran at most twice and each time with the same
 * downstream key; no worker gave its key back (released it or cut its lease) while the journal
 * write or completion of an effect it ran was lost, so that effect runs again only after the
 * lease; every caller that got a settled answer (a value, a final failure, an
 * "outcome not stored") got the same one, and later duplicates replay it without running
 * anything; the record ends COMPLETED without a journal; callers waited at most about one lease
 * for the key in all. The fault-free run of each script gives the expected answer.
 *
 * <p>An adapter's test extends this class and implements {@link #createFixture()}; the fixture's
 * clock must be simulated ({@link StoreFixture#clockIsSimulated()}). Single-threaded and
 * seeded ({@link #seed()}): a failure names the script, clocks, fault, call and seed to replay.
 */
@Timeout(300)
public abstract class FaultInjectionContract {
    /** The fixture for the current test. */
    protected StoreFixture fixture;

    /**
     * Builds the fixture for one test; called before each test.
     *
     * @return a fresh fixture
     * @throws Exception if the backend cannot be reached
     */
    protected abstract StoreFixture createFixture() throws Exception;

    /**
     * The engine a worker runs on; override to add settings your store needs. The kit sets the
     * TTL, clock, ticker, sleeper, randomness, in-progress policy, retry-after hint, failure
     * classifier, ObjectMapper, scheduler, near cache and {@code minBudgetLease} itself, so the builder must
     * leave those unset.
     *
     * @param store the worker's connection to the store under test
     * @return a builder with the store and the fixture's lease set
     */
    protected IdempotencyEngineBuilder engineBuilder(IdempotencyStore store) {
        return IdempotencyEngine.builder().store(store).lease(fixture.lease());
    }

    /**
     * The seed of the runs' randomness (clock skew, backoff jitter); fixed, so every build
     * replays the same runs.
     *
     * @return the seed
     */
    protected long seed() {
        return 20L;
    }

    @BeforeEach
    final void setUpFaultInjection() throws Exception {
        fixture = createFixture();
        if (!fixture.clockIsSimulated()) {
            throw new IllegalStateException("FaultInjectionContract lets hundreds of leases lapse: the fixture's"
                    + " clock must be simulated (StoreFixture.clockIsSimulated())");
        }
    }

    @AfterEach
    final void tearDownFaultInjection() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    static Stream<Arguments> campaigns() {
        List<Arguments> all = new ArrayList<>();
        for (Clocks clocks : Clocks.values()) {
            for (Script script : Script.values()) {
                if (!script.async()) {
                    all.add(Arguments.of(clocks, Deadlines.NONE, script));
                }
            }
        }
        // Deadlines bear on every call, executeAsync's too (here on the blocking operations, on the engine's threads).
        for (Script script : Script.values()) {
            all.add(Arguments.of(Clocks.SAME, Deadlines.PER_CALL, script));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{2}, clocks {0}, deadlines {1}")
    @MethodSource("campaigns")
    void everyStoreCallFailedInTurnLeavesEachEffectOnceOneAnswerAndNoStuckKey(Clocks clocks, Deadlines deadlines,
            Script script) {
        new FaultCampaign(fixture, this::engineBuilder, seed(), "faults-" + UUID.randomUUID())
                .run(clocks, deadlines, script);
    }
}
