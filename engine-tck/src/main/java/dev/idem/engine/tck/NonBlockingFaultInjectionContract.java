package dev.idem.engine.tck;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.tck.FaultCampaign.Clocks;
import dev.idem.engine.tck.FaultCampaign.Script;
import dev.idem.store.tck.StoreFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link FaultInjectionContract}'s campaign for the engine's asynchronous call on a store's
 * {@link dev.idem.api.store.NonBlockingStore} form: {@code executeAsync} with work whose stage
 * completes with a value or with a failure classified final, each non-blocking store call of its
 * first worker failed in turn with every fault (a transient and a permanent error, a reply lost
 * after the write landed, a lapse or a takeover before or after the call, a crash before or after
 * it), with one clock and with the engines' wall clock 5 to 25 s ahead of and behind the store's;
 * each run is then checked from outside as the blocking campaign's are (each effect once, one
 * answer per key, later duplicates replay it, the record COMPLETED, nothing stuck past one lease).
 *
 * <p>An adapter whose store offers a non-blocking form extends this class and implements
 * {@link #createFixture()}; the fixture's store must offer the form and its clock must be simulated.
 */
@Timeout(300)
public abstract class NonBlockingFaultInjectionContract {
    /** The fixture for the current test. */
    protected StoreFixture fixture;

    /**
     * Builds the fixture for one test; called before each test.
     *
     * @return a fresh fixture whose store offers a non-blocking form
     * @throws Exception if the backend cannot be reached
     */
    protected abstract StoreFixture createFixture() throws Exception;

    /**
     * The engine a worker runs on, as in {@link FaultInjectionContract#engineBuilder}; the kit
     * also sets the asynchronous executor and scheduler.
     *
     * @param store the worker's connection to the store under test
     * @return a builder with the store and the fixture's lease set
     */
    protected IdempotencyEngineBuilder engineBuilder(IdempotencyStore store) {
        return IdempotencyEngine.builder().store(store).lease(fixture.lease());
    }

    /**
     * The seed of the runs' randomness; fixed, so every build replays the same runs.
     *
     * @return the seed
     */
    protected long seed() {
        return 33L;
    }

    @BeforeEach
    final void setUpNonBlockingFaultInjection() throws Exception {
        fixture = createFixture();
        if (!fixture.clockIsSimulated()) {
            throw new IllegalStateException("NonBlockingFaultInjectionContract lets leases lapse: the fixture's"
                    + " clock must be simulated (StoreFixture.clockIsSimulated())");
        }
        if (fixture.store().nonBlocking().isEmpty()) {
            throw new IllegalStateException(fixture.store() + " offers no NonBlockingStore: extend"
                    + " FaultInjectionContract only");
        }
    }

    @AfterEach
    final void tearDownNonBlockingFaultInjection() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    static Stream<Arguments> campaigns() {
        List<Arguments> all = new ArrayList<>();
        // Waiting duplicates poll on the engine's real-time scheduler, which a stepped simulated clock cannot drive.
        for (Clocks clocks : List.of(Clocks.SAME, Clocks.SKEWED)) {
            for (Script script : Script.values()) {
                if (script.async()) {
                    all.add(Arguments.of(clocks, script));
                }
            }
        }
        return all.stream();
    }

    /**
     * {@link EngineFuzzContract}'s hot-key load case over the store's non-blocking form: every
     * engine's client of the form has fewer connections than there are hot keys and answers more
     * slowly the more calls it holds, and the waiting duplicates' claims are held in it while the
     * work is pending; every live holder's renewal must still reach the store in time, its work run
     * once, and every caller get its value.
     *
     * @throws Exception if the run fails
     */
    @Test
    void manyWaitingDuplicatesOnHotKeysNeverTakeALiveWorkersKeyThroughTheNonBlockingForm() throws Exception {
        HotKeyLoad.overNonBlockingForm(fixture).run();
    }

    /**
     * A key claimed under one fingerprint version (plain, or keyed under a first secret) and its
     * duplicates on an engine that turned keyed fingerprints on (or rotated the secret): waiters
     * sharing one poll (blocking and asynchronous), a fail-fast caller's own claim, a waiter's own
     * polls and the near cache all see the same request and replay its outcome, the asynchronous
     * ones through the store's non-blocking form (see {@code FingerprintVersionChange}).
     *
     * @param change how the duplicates' engine differs from the holder's
     * @throws Exception if the run fails
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(FingerprintVersionChange.Change.class)
    void everyWaitingPathReplaysAcrossAFingerprintVersionChange(FingerprintVersionChange.Change change)
            throws Exception {
        new FingerprintVersionChange(fixture).run(change);
    }

    @ParameterizedTest(name = "{1}, clocks {0}")
    @MethodSource("campaigns")
    void everyNonBlockingStoreCallFailedInTurnLeavesEachEffectOnceOneAnswerAndNoStuckKey(Clocks clocks,
            Script script) {
        new FaultCampaign(fixture, this::engineBuilder, seed(), "nb-faults-" + UUID.randomUUID()).run(clocks, script);
    }
}
