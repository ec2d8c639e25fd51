package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.time.Scheduler;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.Result;
import dev.idem.engine.tck.FaultCampaign.Clocks;
import dev.idem.engine.tck.FaultCampaign.Deadlines;
import dev.idem.engine.tck.FaultCampaign.Script;
import dev.idem.store.tck.HeldAnswers;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
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
 * it), with one clock and with the engines' wall clock 5 to 25 s ahead of and behind the store's,
 * and with a deadline of half a lease on every call and work that outlives it (under the faults
 * where time passes mid-call or a claim is left to lapse); each run is then checked from outside as
 * the blocking campaign's are (no work started after its caller's deadline, each effect once, one
 * answer per key, later duplicates replay it, the record COMPLETED, nothing stuck past one lease).
 *
 * <p>An adapter whose store offers a non-blocking form extends this class and implements
 * {@link #createFixture()}; the fixture's store must offer the form and its clock must be simulated.
 */
@Timeout(300)
public abstract class NonBlockingFaultInjectionContract {
    private static final String REQUEST = "{\"order\":\"o-1\"}";
    /** The longest a test waits for an asynchronous answer. */
    private static final Duration ANSWER = Duration.ofSeconds(60);
    private static final Scheduler NEVER = (delay, task) -> () -> { };

    /** The fixture for the current test. */
    protected StoreFixture fixture;
    private final String scope = "nb-" + UUID.randomUUID();
    private final List<IdempotencyEngine> opened = new ArrayList<>();

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
        opened.forEach(IdempotencyEngine::close);
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
                    all.add(Arguments.of(clocks, Deadlines.NONE, script));
                }
            }
        }
        for (Script script : Script.values()) {
            if (script.async()) {
                all.add(Arguments.of(Clocks.SAME, Deadlines.PER_CALL, script));
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

    private IdempotencyKey key(String name) {
        return IdempotencyKey.of(scope, "order", name);
    }

    /**
     * An engine for the form's checks: its timer never fires, so no lease is renewed behind the
     * test's back (the leases lapse only when the test moves the store's clock).
     */
    private IdempotencyEngine engine(IdempotencyStore store) {
        IdempotencyEngine engine = engineBuilder(store).scheduler(NEVER).build();
        opened.add(engine);
        return engine;
    }

    /**
     * The form's first promise, as the engine's asynchronous call meets it: with the store's answers
     * held, {@code executeAsync} returns at once, its answer not done and its work not started; once
     * the answers are let go, the work runs and the answer comes. A form that waits for the store on
     * its caller's thread parks the caller (an event loop) here.
     */
    @Test
    void executeAsyncReturnsWhileTheStoreHoldsItsAnswers() throws Exception {
        IdempotencyEngine engine = engine(fixture.store());
        AtomicBoolean ran = new AtomicBoolean();
        StoreFixture.AnswersHeld hold = fixture.holdAnswers();
        CompletableFuture<Result<String>> answer;
        try {
            answer = HeldAnswers.returnWhileHeld(hold, "executeAsync over the store's NonBlockingStore", null,
                    () -> engine.executeAsync(key("held"), REQUEST, String.class, ctx -> {
                        ran.set(true);
                        return CompletableFuture.completedFuture("v");
                    }));
            assertThat(answer.isDone()).as("executeAsync's answer while the store held its answers").isFalse();
            assertThat(ran).as("work started while the store held the claim's answer").isFalse();
        } finally {
            hold.close();
        }
        assertThat(answered(answer).value()).isEqualTo("v");
        assertThat(ran).isTrue();
    }

    /**
     * A worker whose lease was taken over cannot complete through the form, even once the taker's
     * lease has lapsed too (nobody took it over, so the taker still holds the only valid token):
     * its completion is refused ({@link LeaseLostException}) and the taker's is stored.
     */
    @Test
    void aStaleWorkersCompletionThroughTheFormIsRefused() throws Exception {
        IdempotencyKey key = key("stale");
        IdempotencyEngine stale = engine(fixture.store());
        IdempotencyEngine taker = engine(fixture.otherStore());
        CompletableFuture<String> staleWork = new CompletableFuture<>();
        CompletableFuture<Void> started = new CompletableFuture<>();
        CompletableFuture<Result<String>> staleAnswer = stale.executeAsync(key, REQUEST, String.class, ctx -> {
            started.complete(null);
            return staleWork;
        });
        started.get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
        fixture.advance(fixture.lease().plus(fixture.slack()));
        AtomicReference<Throwable> staleEnd = new AtomicReference<>();
        Result<String> taken;
        try {
            taken = taker.execute(key, REQUEST, String.class, ctx -> {
                // The taker's lease lapses as well; nobody takes it over.
                fixture.advance(fixture.lease().plus(fixture.slack()));
                staleWork.complete("stale");
                staleEnd.set(staleAnswer.handle((r, e) -> e == null ? null : unwrap(e))
                        .get(ANSWER.toMillis(), TimeUnit.MILLISECONDS));
                return "taker";
            });
        } catch (LeaseLostException e) {
            taken = null;
        }
        assertThat(staleEnd.get()).as("what the stale worker's completion through the form got (its lease was"
                + " taken over; the taker's lapsed but was not taken over)").isInstanceOf(LeaseLostException.class);
        assertThat(taken).as("the taker's call (it still holds the only valid token)").isNotNull();
        assertThat(taken.value()).isEqualTo("taker");
        assertThat(answered(stale.executeAsync(key, REQUEST, String.class,
                ctx -> CompletableFuture.completedFuture("never"))).value()).isEqualTo("taker");
    }

    /**
     * The form and the blocking operations act on the same records: what an asynchronous call
     * completed through the form, a blocking call on the other store instance replays, and the
     * other way round; neither runs the work again.
     */
    @Test
    void theFormAndTheBlockingOperationsShareTheirRecords() throws Exception {
        IdempotencyEngine async = engine(fixture.store());
        IdempotencyEngine blocking = engine(fixture.otherStore());
        IdempotencyKey first = key("form-first");
        assertThat(answered(async.executeAsync(first, REQUEST, String.class,
                ctx -> CompletableFuture.completedFuture("through the form"))).value()).isEqualTo("through the form");
        Result<String> replay = blocking.execute(first, REQUEST, String.class, ctx -> "again");
        assertThat(replay.value()).as("a blocking call after an asynchronous one completed the key through the form")
                .isEqualTo("through the form");
        assertThat(replay.replayed()).isTrue();

        IdempotencyKey second = key("blocking-first");
        assertThat(blocking.execute(second, REQUEST, String.class, ctx -> "blocking").value()).isEqualTo("blocking");
        Result<String> asyncReplay = answered(async.executeAsync(second, REQUEST, String.class,
                ctx -> CompletableFuture.completedFuture("again")));
        assertThat(asyncReplay.value()).as("an asynchronous call through the form after a blocking one completed"
                + " the key").isEqualTo("blocking");
        assertThat(asyncReplay.replayed()).isTrue();
    }

    private static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static <T> T answered(CompletableFuture<T> answer) throws Exception {
        return answer.get(ANSWER.toMillis(), TimeUnit.MILLISECONDS);
    }

    @ParameterizedTest(name = "{2}, clocks {0}, deadlines {1}")
    @MethodSource("campaigns")
    void everyNonBlockingStoreCallFailedInTurnLeavesEachEffectOnceOneAnswerAndNoStuckKey(Clocks clocks,
            Deadlines deadlines, Script script) {
        new FaultCampaign(fixture, this::engineBuilder, seed(), "nb-faults-" + UUID.randomUUID())
                .run(clocks, deadlines, script);
    }
}
