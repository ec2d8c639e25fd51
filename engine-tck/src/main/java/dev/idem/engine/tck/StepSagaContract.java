package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.Reconciliation;
import dev.idem.engine.Result;
import dev.idem.engine.StepJournalTooLargeException;
import dev.idem.engine.StepOutcomeUnknownException;
import dev.idem.engine.StepReconciler;
import dev.idem.engine.Work;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A three-step saga (reserve, charge, ship) whose worker dies before, inside and after each
 * step, run by the engine over the store under test, once with plain steps and once with
 * at-most-once steps. An adapter's test extends this class
 * and implements {@link #createFixture()}; the store must implement
 * {@link IdempotencyStore#checkpoint}.
 *
 * <p>Death is simulated without threads or sleeps: at the chosen moment the first worker
 * lets its lease lapse on the store's clock ({@link StoreFixture#advance}), a second engine on
 * {@link StoreFixture#otherStore()} takes the key over and finishes the saga, and then the
 * first worker dies (an {@link Error} unwinds it without its token ever being current again)
 * or, in the stale-worker cases, carries on and must find its journal write refused.
 *
 * <p>What every case checks: each step's effect reaches the downstream system once, except
 * the step that was interrupted mid-way, which runs again with the same downstream key (so a
 * downstream service that deduplicates by key applies it once); the taker-over's outcome is
 * what every later call replays; the record ends COMPLETED with no journal.
 *
 * <p>The at-most-once saga ({@code ctx.atMostOnceStep}, its effects at a bank that does not
 * deduplicate, so a repeat shows as a second transfer) runs with a worker dying at each point
 * of each step (before the start marker, between marker and effect, between effect and journal,
 * after), stalling past its lease at each point where it must be stopped (before its marker,
 * just after its marker landed, before its result's journal write) while others take the key
 * over, and failing transiently before and after the effect. Checked from outside: each step's
 * transfer happens exactly once and under a worker's current claim, the reconciler is called
 * exactly when the step's marker was on record without a result (and then names the attempt that
 * wrote it), every caller of the key gets the same answer, and a reconciler that cannot tell fails
 * the key finally for every caller.
 */
@Timeout(120)
public abstract class StepSagaContract {
    private static final String[] STEPS = {"reserve", "charge", "ship"};

    /** The fixture for the current test. */
    protected StoreFixture fixture;
    private IdempotencyEngine first;
    private IdempotencyEngine second;
    private IdempotencyKey key;
    private final Downstream downstream = new Downstream();

    /**
     * Builds the fixture for one test; called before each test.
     *
     * @return a fresh fixture
     * @throws Exception if the backend cannot be reached
     */
    protected abstract StoreFixture createFixture() throws Exception;

    /**
     * The engine a worker runs on; override to add settings your store needs.
     *
     * @param store the store this worker uses
     * @return a builder with the store, lease and TTL set
     */
    protected IdempotencyEngineBuilder engineBuilder(IdempotencyStore store) {
        return IdempotencyEngine.builder().store(store).lease(fixture.lease()).ttl(fixture.ttl());
    }

    @BeforeEach
    final void setUpSaga() throws Exception {
        fixture = createFixture();
        first = engineBuilder(fixture.store()).build();
        second = engineBuilder(fixture.otherStore()).build();
        key = IdempotencyKey.of("saga-" + UUID.randomUUID(), "place-order", "order-1");
    }

    @AfterEach
    final void tearDownSaga() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    /** Where in a step the first worker dies. */
    enum Moment { BEFORE, INSIDE, AFTER }

    /** The worker died: nothing of it runs any more. */
    static final class Killed extends Error {
        private static final long serialVersionUID = 1L;

        Killed() {
            super("worker killed (simulated)", null, false, false);
        }
    }

    /** A downstream system that logs every call and, like a payment provider, applies one effect per key. */
    static final class Downstream {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());
        final Map<String, String> applied = Collections.synchronizedMap(new LinkedHashMap<>());

        String call(String step, ExecutionContext ctx) {
            String dedupKey = ctx.downstreamKey(step);
            calls.add(step + " " + dedupKey);
            applied.putIfAbsent(dedupKey, step);
            return step + "@" + ctx.attempt();
        }

        long callsOf(String step) {
            return calls.stream().filter(c -> c.startsWith(step + " ")).count();
        }

        long distinctKeysOf(String step) {
            return calls.stream().filter(c -> c.startsWith(step + " ")).distinct().count();
        }
    }

    /** Runs at a moment of a step on the first attempt only. */
    @FunctionalInterface
    interface Hook {
        void at(Moment moment, int step, ExecutionContext ctx) throws Exception;
    }

    private Work<String> saga(Hook hook) {
        return ctx -> {
            List<String> results = new ArrayList<>();
            for (int i = 0; i < STEPS.length; i++) {
                int step = i;
                hook.at(Moment.BEFORE, step, ctx);
                results.add(ctx.step(STEPS[step], String.class, () -> {
                    String r = downstream.call(STEPS[step], ctx);
                    hook.at(Moment.INSIDE, step, ctx);
                    return r;
                }));
                hook.at(Moment.AFTER, step, ctx);
            }
            return String.join(",", results);
        };
    }

    private static final Hook NONE = (moment, step, ctx) -> { };

    private Result<String> takeOver() throws InterruptedException {
        fixture.advance(fixture.lease().plus(fixture.slack()));
        return second.execute(key, "{\"sku\":\"X\"}", String.class, saga(NONE));
    }

    private Result<String> run(IdempotencyEngine engine, Hook hook) {
        return engine.execute(key, "{\"sku\":\"X\"}", String.class, saga(hook));
    }

    static Stream<Arguments> killPoints() {
        List<Arguments> all = new ArrayList<>();
        for (Moment m : Moment.values()) {
            for (int step = 0; step < STEPS.length; step++) {
                all.add(Arguments.of(m, step));
            }
        }
        return all.stream();
    }

    /** Which attempt produced step {@code step}'s result, when the first worker died at {@code moment} of {@code killed}. */
    private static String expectedOutcome(Moment moment, int killed) {
        List<String> parts = new ArrayList<>();
        for (int step = 0; step < STEPS.length; step++) {
            boolean journaledByFirst = step < killed || (step == killed && moment == Moment.AFTER);
            parts.add(STEPS[step] + "@" + (journaledByFirst ? 1 : 2));
        }
        return String.join(",", parts);
    }

    private void assertSettledOn(String outcome) {
        assertThat(run(first, NONE).value()).isEqualTo(outcome);
        Result<String> replay = run(second, NONE);
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(outcome);
        StoredRecord record = fixture.store().find(key).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.journal()).isNull();
    }

    private void assertEffects(int interrupted) {
        for (int step = 0; step < STEPS.length; step++) {
            assertThat(downstream.callsOf(STEPS[step])).as("calls of " + STEPS[step])
                    .isEqualTo(step == interrupted ? 2 : 1);
            assertThat(downstream.distinctKeysOf(STEPS[step])).as("downstream keys of " + STEPS[step]).isEqualTo(1);
        }
        assertThat(downstream.applied.values()).containsExactly(STEPS);
    }

    @ParameterizedTest(name = "killed {0} {1}")
    @MethodSource("killPoints")
    void aWorkerKilledAroundAStepIsTakenOverAndEveryEffectHappensOnce(Moment moment, int killed) {
        Result<?>[] takenOver = new Result<?>[1];
        Hook die = (m, step, ctx) -> {
            if (ctx.attempt() == 1 && m == moment && step == killed) {
                takenOver[0] = takeOver();
                throw new Killed();
            }
        };

        assertThatThrownBy(() -> run(first, die)).isInstanceOf(Killed.class);

        String outcome = expectedOutcome(moment, killed);
        assertThat(takenOver[0].replayed()).isFalse();
        assertThat(takenOver[0].attempt()).isEqualTo(2);
        assertThat(takenOver[0].value()).isEqualTo(outcome);
        assertEffects(moment == Moment.INSIDE ? killed : -1);
        assertSettledOn(outcome);
    }

    @ParameterizedTest(name = "stale inside {0}")
    @MethodSource("steps")
    void aStaleWorkerCannotJournalItsStepAndRunsNoFurtherStep(int stalled) {
        Result<?>[] takenOver = new Result<?>[1];
        Hook stall = (m, step, ctx) -> {
            if (ctx.attempt() == 1 && m == Moment.INSIDE && step == stalled) {
                takenOver[0] = takeOver();
            }
        };

        assertThatThrownBy(() -> run(first, stall)).isInstanceOf(LeaseLostException.class);

        String outcome = expectedOutcome(Moment.INSIDE, stalled);
        assertThat(takenOver[0].value()).isEqualTo(outcome);
        assertEffects(stalled);
        assertSettledOn(outcome);
    }

    @ParameterizedTest(name = "transient failure in {0}")
    @MethodSource("steps")
    void aRetryAfterATransientFailureResumesAtTheFailedStep(int failing) throws InterruptedException {
        Hook fail = (m, step, ctx) -> {
            if (ctx.attempt() == 1 && m == Moment.INSIDE && step == failing) {
                throw new IllegalStateException("provider timed out");
            }
        };

        assertThatThrownBy(() -> run(first, fail)).hasMessage("provider timed out");
        StoredRecord givenBack = fixture.store().find(key).orElseThrow();
        if (failing == 0) {
            // Nothing journaled: the key is released, free for any request.
            assertThat(givenBack.state()).isEqualTo(RecordState.RELEASED);
        } else {
            // Steps are journaled, so the key is handed back, not released: it keeps its
            // fingerprint (another request is refused) and its lease ends a millisecond later.
            assertThat(givenBack.state()).isEqualTo(RecordState.IN_PROGRESS);
            fixture.advance(Duration.ofMillis(1).plus(fixture.slack()));
            assertThatThrownBy(() -> second.execute(key, "{\"sku\":\"Y\"}", String.class, saga(NONE)))
                    .isInstanceOf(KeyReusedException.class);
        }
        Result<String> retry = run(second, NONE);

        String outcome = expectedOutcome(Moment.INSIDE, failing);
        assertThat(retry.value()).isEqualTo(outcome);
        assertEffects(failing);
        assertSettledOn(outcome);
    }

    static Stream<Integer> steps() {
        return Stream.of(0, 1, 2);
    }

    private AtMostOnceSaga atMostOnce() {
        return new AtMostOnceSaga(fixture, this::engineBuilder, IdempotencyKey.of("saga-" + UUID.randomUUID(),
                "wire-order", "order-1"));
    }

    static Stream<Arguments> atMostOncePoints() {
        List<Arguments> all = new ArrayList<>();
        for (AtMostOnceSaga.Point p : AtMostOnceSaga.Point.values()) {
            for (int step = 0; step < STEPS.length; step++) {
                all.add(Arguments.of(p, step));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "at-most-once, killed {0} of step {1}")
    @MethodSource("atMostOncePoints")
    void anAtMostOnceStepHappensOnceWhereverItsWorkerDiesAndIsReconciledOnlyFromItsMarker(AtMostOnceSaga.Point point,
            int killed) {
        AtMostOnceSaga saga = atMostOnce();
        AtMostOnceSaga.Worker first = saga.worker();

        assertThatThrownBy(() -> saga.run(first, AtMostOnceSaga.killAt(first, 1, point, killed)))
                .isInstanceOf(AtMostOnceSaga.Killed.class);
        saga.lapse();
        Result<String> takenOver = saga.run(saga.worker(), AtMostOnceSaga.NONE);

        int[] by = new int[STEPS.length];
        for (int step = 0; step < STEPS.length; step++) {
            boolean byFirst = step < killed || (step == killed && (point == AtMostOnceSaga.Point.AFTER_JOURNAL
                    || point == AtMostOnceSaga.Point.BETWEEN_EFFECT_AND_JOURNAL));
            by[step] = byFirst ? 1 : 2;
        }
        assertThat(takenOver.attempt()).isEqualTo(2);
        boolean markerWithoutResult = point == AtMostOnceSaga.Point.BETWEEN_MARKER_AND_EFFECT
                || point == AtMostOnceSaga.Point.BETWEEN_EFFECT_AND_JOURNAL;
        saga.assertSettled(AtMostOnceSaga.outcome(by), markerWithoutResult
                ? List.of(new AtMostOnceSaga.Reconciled(STEPS[killed], 1, 2)) : List.of());
    }

    static Stream<Arguments> atMostOnceStalls() {
        List<Arguments> all = new ArrayList<>();
        for (AtMostOnceSaga.Stall s : AtMostOnceSaga.Stall.values()) {
            for (int step = 0; step < STEPS.length; step++) {
                all.add(Arguments.of(s, step));
            }
        }
        return all.stream();
    }

    /**
     * A worker stalls past its lease at {@code stall} of step {@code k}; a second worker takes the
     * key over and dies (connection cut) right after step {@code k}, or before it, so the key is held
     * by another live claim when the stale worker goes on: it must neither start nor finish step
     * {@code k} (see {@link AtMostOnceSaga.Stall} for what stops it). A third worker settles the key.
     */
    @ParameterizedTest(name = "at-most-once, stale {0} of step {1}")
    @MethodSource("atMostOnceStalls")
    void aStaleWorkerCanNeitherStartNorFinishAnAtMostOnceStep(AtMostOnceSaga.Stall stall, int k) {
        AtMostOnceSaga saga = atMostOnce();
        AtMostOnceSaga.Worker first = saga.worker(stall.seen());
        AtMostOnceSaga.Worker second = saga.worker();
        Runnable takeOverAndDie = () -> {
            saga.lapse();
            AtMostOnceSaga.Point dies = stall == AtMostOnceSaga.Stall.BEFORE_MARKER
                    ? AtMostOnceSaga.Point.BEFORE_MARKER : AtMostOnceSaga.Point.AFTER_JOURNAL;
            assertThatThrownBy(() -> saga.run(second, AtMostOnceSaga.killAt(second, 2, dies, k)))
                    .isInstanceOf(AtMostOnceSaga.Killed.class);
        };
        AtMostOnceSaga.Hook hook = (p, step, ctx) -> {
            if (ctx.attempt() == 1 && step == k && ((stall == AtMostOnceSaga.Stall.BEFORE_MARKER
                    && p == AtMostOnceSaga.Point.BEFORE_MARKER) || (stall == AtMostOnceSaga.Stall.BETWEEN_EFFECT_AND_JOURNAL
                    && p == AtMostOnceSaga.Point.BETWEEN_EFFECT_AND_JOURNAL))) {
                takeOverAndDie.run();
            }
        };
        if (stall == AtMostOnceSaga.Stall.AFTER_MARKER_LANDED) {
            // Each step journals its start marker, then its result: step k's marker is checkpoint 2k + 1.
            first.connection().afterCheckpoint = n -> {
                if (n == 2 * k + 1) {
                    takeOverAndDie.run();
                }
            };
        }

        assertThatThrownBy(() -> saga.run(first, hook)).isInstanceOf(LeaseLostException.class);
        saga.lapse();
        saga.run(saga.worker(), AtMostOnceSaga.NONE);

        int[] by = new int[STEPS.length];
        for (int step = 0; step < STEPS.length; step++) {
            by[step] = step < k ? 1 : step > k ? 3 : switch (stall) {
                case BEFORE_MARKER -> 3;
                case AFTER_MARKER_LANDED -> 2;
                case BETWEEN_EFFECT_AND_JOURNAL -> 1;
            };
        }
        saga.assertSettled(AtMostOnceSaga.outcome(by), stall == AtMostOnceSaga.Stall.BEFORE_MARKER ? List.of()
                : List.of(new AtMostOnceSaga.Reconciled(STEPS[k], 1, 2)));
    }

    /**
     * The action fails transiently before or after its effect (a bank that timed out): the step's
     * marker stays without a result, the key is handed back, and the retry reconciles it.
     */
    @ParameterizedTest(name = "at-most-once, transient failure {0} of step {1}")
    @MethodSource("atMostOnceFailures")
    void aTransientFailureInsideAnAtMostOnceStepIsReconciledByTheRetry(AtMostOnceSaga.Point point, int failing)
            throws InterruptedException {
        AtMostOnceSaga saga = atMostOnce();
        AtMostOnceSaga.Hook fail = (p, step, ctx) -> {
            if (ctx.attempt() == 1 && p == point && step == failing) {
                throw new AtMostOnceSaga.Flaky();
            }
        };

        assertThatThrownBy(() -> saga.run(saga.worker(), fail)).isInstanceOf(AtMostOnceSaga.Flaky.class);
        String handedBack = "a key whose journal holds a start marker is handed back, not released";
        assertThat(fixture.store().find(saga.key)).as(handedBack).isPresent();
        assertThat(fixture.store().find(saga.key).orElseThrow().state()).as(handedBack)
                .isEqualTo(RecordState.IN_PROGRESS);
        fixture.advance(Duration.ofMillis(1).plus(fixture.slack()));
        saga.run(saga.worker(), AtMostOnceSaga.NONE);

        int[] by = new int[STEPS.length];
        for (int step = 0; step < STEPS.length; step++) {
            by[step] = step < failing || (step == failing && point == AtMostOnceSaga.Point.BETWEEN_EFFECT_AND_JOURNAL)
                    ? 1 : 2;
        }
        saga.assertSettled(AtMostOnceSaga.outcome(by), List.of(new AtMostOnceSaga.Reconciled(STEPS[failing], 1, 2)));
    }

    static Stream<Arguments> atMostOnceFailures() {
        List<Arguments> all = new ArrayList<>();
        for (int step = 0; step < STEPS.length; step++) {
            all.add(Arguments.of(AtMostOnceSaga.Point.BETWEEN_MARKER_AND_EFFECT, step));
            all.add(Arguments.of(AtMostOnceSaga.Point.BETWEEN_EFFECT_AND_JOURNAL, step));
        }
        return all.stream();
    }

    @Test
    void anAtMostOnceStepWhoseOutcomeCannotBeToldFailsTheKeyFinallyForEveryCaller() {
        AtMostOnceSaga saga = atMostOnce();
        AtMostOnceSaga.Worker first = saga.worker();
        assertThatThrownBy(() -> saga.run(first, AtMostOnceSaga.killAt(first, 1,
                AtMostOnceSaga.Point.BETWEEN_EFFECT_AND_JOURNAL, 1))).isInstanceOf(AtMostOnceSaga.Killed.class);
        saga.lapse();
        List<String> asked = new ArrayList<>();
        StepReconciler<String> cannotTell = step -> {
            asked.add(step.name() + " started by " + step.startedBy());
            return Reconciliation.unknown("the bank's lookup is down");
        };

        String answer = saga.answer(saga.worker(), cannotTell);
        for (int i = 0; i < 3; i++) {
            saga.answer(saga.worker(), cannotTell);
        }

        assertThat(answer).startsWith("final failure " + StepOutcomeUnknownException.CODE)
                .contains("'charge'").contains("attempt 1").contains("the bank's lookup is down");
        saga.assertAnswers(answer);
        assertThat(asked).containsExactly("charge started by 1");
        assertThat(saga.bank.transfers).extracting(AtMostOnceSaga.Transfer::step).containsExactly("reserve", "charge");
        assertThat(fixture.store().find(saga.key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void aStepResultOverTheStoresLimitFailsTheKeyFinallyAndTheStepNeverRepeats() {
        int limit = first.maxOutcomeBytes();
        Work<String> work = ctx -> ctx.step("reserve", String.class, () -> {
            downstream.call("reserve", ctx);
            return "x".repeat(limit);
        });

        assertThatThrownBy(() -> first.execute(key, "{}", String.class, work))
                .isInstanceOf(FinalFailureException.class).hasStackTraceContaining("step 'reserve'")
                .extracting(t -> ((FinalFailureException) t).code()).isEqualTo(StepJournalTooLargeException.CODE);
        assertThatThrownBy(() -> second.execute(key, "{}", String.class, work))
                .isInstanceOf(ReplayedFailureException.class)
                .hasMessageContaining(StepJournalTooLargeException.CODE);
        assertThat(downstream.callsOf("reserve")).isEqualTo(1);
    }
}
