package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Ticker;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.InterruptedStep;
import dev.idem.engine.Reconciliation;
import dev.idem.engine.Result;
import dev.idem.engine.StepReconciler;
import dev.idem.engine.Work;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The at-most-once half of {@link StepSagaContract}: a saga of three at-most-once steps whose
 * effects land at a bank that does not deduplicate (each call is a new transfer), so a step
 * that ran twice shows as two transfers. Workers die, stall past their lease or fail at the
 * points of a step that matter (before its start marker, between the marker and the effect,
 * between the effect and the journal write, after it), and every check is made from outside
 * the engine: the bank's transfers, the reconciler's calls, the callers' answers and the
 * store's record.
 *
 * <p>Deaths are real for the store: a dying worker's connection is cut first, so it releases
 * and hands back nothing, and its claim stays until its lease lapses on the store's clock.
 * The engines' ticker moves with the store's clock, so a worker that stalled past its lease
 * can see that it did.
 */
final class AtMostOnceSaga {
    static final String[] STEPS = {"reserve", "charge", "ship"};
    private static final String REQUEST = "{\"sku\":\"X\",\"mode\":\"at-most-once\"}";

    /** Where in an at-most-once step something happens to the worker. */
    enum Point {
        /** Before the step is called: its start marker is not written yet. */
        BEFORE_MARKER,
        /** In the step's action, before its effect: the marker is on record. */
        BETWEEN_MARKER_AND_EFFECT,
        /** In the step's action, after its effect: the result is not journaled yet. */
        BETWEEN_EFFECT_AND_JOURNAL,
        /** After the step returned: its result is journaled. */
        AFTER_JOURNAL
    }

    /**
     * Where a stale worker stalls past its lease while others take the key over. Before the
     * marker and before the result's journal write the stale worker's ticker does not show the
     * stall (as if the store's clock had run ahead of it), so only the fence can stop it; just
     * after its marker landed it does, and the engine's lease check must stop it.
     */
    enum Stall {
        /** Before the step: when it goes on, its start marker must be refused. */
        BEFORE_MARKER,
        /** Just after its start marker landed: its action must never run. */
        AFTER_MARKER_LANDED,
        /** After the effect: its result's journal write must be refused. */
        BETWEEN_EFFECT_AND_JOURNAL;

        /** Whether the stale worker's ticker shows the stall. */
        boolean seen() {
            return this == AFTER_MARKER_LANDED;
        }
    }

    /** The worker died: nothing of it runs any more. */
    static final class Killed extends Error {
        private static final long serialVersionUID = 1L;

        Killed() {
            super("worker killed (simulated)", null, false, false);
        }
    }

    /** The action failed transiently (a timeout, say). */
    static final class Flaky extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Flaky() {
            super("bank timed out (simulated)", null, false, false);
        }
    }

    /** One transfer as the bank saw it. */
    record Transfer(String step, String reference, int attempt, boolean underCurrentClaim) {
        String result() {
            return step + "@" + attempt;
        }
    }

    /** One call of the reconciler. */
    record Reconciled(String step, int startedBy, int attempt) {
    }

    /** A bank without idempotency keys: every call is a transfer; a lookup by reference finds one. */
    final class Bank {
        final List<Transfer> transfers = Collections.synchronizedList(new ArrayList<>());
        final List<Reconciled> reconciled = Collections.synchronizedList(new ArrayList<>());

        String transfer(String step, ExecutionContext ctx) {
            // Whether the worker still held the key when its effect ran: the record, read from outside.
            Optional<StoredRecord> now = fixture.store().find(key);
            boolean current = now.isPresent() && now.get().state() == RecordState.IN_PROGRESS
                    && now.get().fencingToken() == ctx.fencingToken();
            Transfer t = new Transfer(step, ctx.downstreamKey(step), ctx.attempt(), current);
            transfers.add(t);
            return t.result();
        }

        Reconciliation<String> lookUp(InterruptedStep step) {
            reconciled.add(new Reconciled(step.name(), step.startedBy(), step.attempt()));
            synchronized (transfers) {
                for (Transfer t : transfers) {
                    if (t.reference().equals(step.downstreamKey())) {
                        return Reconciliation.happened(t.result());
                    }
                }
            }
            return Reconciliation.didNotHappen();
        }

        long transfersOf(String step) {
            return transfers.stream().filter(t -> t.step().equals(step)).count();
        }
    }

    /** Runs at a point of a step. */
    @FunctionalInterface
    interface Hook {
        void at(Point point, int step, ExecutionContext ctx) throws Exception;
    }

    static final Hook NONE = (p, s, c) -> { };

    /** One worker's connection to the store: cut when the worker dies; may act after a checkpoint lands. */
    static final class Connection extends ForwardingIdempotencyStore {
        private boolean cut;
        private int checkpoints;
        /** Called with the count of this worker's checkpoints that landed, after each. */
        java.util.function.IntConsumer afterCheckpoint = n -> { };

        Connection(IdempotencyStore store) {
            super(store);
        }

        void cut() {
            cut = true;
        }

        @Override
        protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
            if (cut) {
                throw new StoreUnavailableException("connection cut: the worker died", null);
            }
            return call.get();
        }

        @Override
        public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            boolean saved = super.checkpoint(key, fencingToken, journal);
            if (saved) {
                afterCheckpoint.accept(++checkpoints);
            }
            return saved;
        }

        @Override
        public void close() {
            // Workers share the store under test; a connection closes nothing.
        }
    }

    /** A worker: its connection and its engine. */
    record Worker(Connection connection, IdempotencyEngine engine) {
        /** Dies here: the connection is cut first, so nothing of this worker reaches the store again. */
        Killed die() {
            connection.cut();
            return new Killed();
        }
    }

    private final StoreFixture fixture;
    private final Function<IdempotencyStore, IdempotencyEngineBuilder> engineBuilder;
    final IdempotencyKey key;
    final Bank bank = new Bank();
    private final List<String> answers = new ArrayList<>();
    private long advanced;
    private int workers;

    AtMostOnceSaga(StoreFixture fixture, Function<IdempotencyStore, IdempotencyEngineBuilder> engineBuilder,
            IdempotencyKey key) {
        this.fixture = fixture;
        this.engineBuilder = engineBuilder;
        this.key = key;
    }

    /** The engines' ticker: real time plus what the store's clock was moved. */
    private Ticker ticker() {
        return () -> System.nanoTime() + advanced;
    }

    /** A new worker on the store under test (every other one on the fixture's other store instance). */
    Worker worker() {
        return worker(true);
    }

    /**
     * A new worker; if {@code seesLapses} is false its ticker is real time alone, so it cannot
     * tell that its lease lapsed on the store's clock.
     */
    Worker worker(boolean seesLapses) {
        IdempotencyStore store = ++workers % 2 == 1 ? fixture.store() : fixture.otherStore();
        Connection connection = new Connection(store);
        Ticker ticker = seesLapses ? ticker() : System::nanoTime;
        return new Worker(connection, engineBuilder.apply(connection).ticker(ticker).build());
    }

    /** Lets every lease lapse on the store's clock, and on the engines' ticker. */
    void lapse() {
        Duration d = fixture.lease().plus(fixture.slack());
        try {
            fixture.advance(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while moving the store's clock", e);
        }
        advanced += d.toNanos();
    }

    /** The saga: three at-most-once steps, each reconciled by looking its transfer up at the bank. */
    Work<String> saga(Hook hook) {
        return saga(hook, bank::lookUp);
    }

    Work<String> saga(Hook hook, StepReconciler<String> reconcile) {
        return ctx -> {
            List<String> results = new ArrayList<>();
            for (int i = 0; i < STEPS.length; i++) {
                int step = i;
                hook.at(Point.BEFORE_MARKER, step, ctx);
                results.add(ctx.atMostOnceStep(STEPS[step], String.class, () -> {
                    hook.at(Point.BETWEEN_MARKER_AND_EFFECT, step, ctx);
                    String r = bank.transfer(STEPS[step], ctx);
                    hook.at(Point.BETWEEN_EFFECT_AND_JOURNAL, step, ctx);
                    return r;
                }, reconcile));
                hook.at(Point.AFTER_JOURNAL, step, ctx);
            }
            return String.join(",", results);
        };
    }

    /** A hook that kills {@code worker} at {@code point} of {@code step}, on the given attempt. */
    static Hook killAt(Worker worker, int attempt, Point point, int step) {
        return (p, s, ctx) -> {
            if (ctx.attempt() == attempt && p == point && s == step) {
                throw worker.die();
            }
        };
    }

    /** Runs the saga on {@code w} with {@code hook}; the caller's answer is recorded, a death is not an answer. */
    Result<String> run(Worker w, Hook hook) {
        Result<String> r = w.engine().execute(key, REQUEST, String.class, saga(hook));
        answers.add("value " + r.value());
        return r;
    }

    /** Runs the saga on {@code w}, recording what the caller got: a value or a final failure. */
    String answer(Worker w, StepReconciler<String> reconcile) {
        String answer;
        try {
            answer = "value " + w.engine().execute(key, REQUEST, String.class, saga(NONE, reconcile)).value();
        } catch (FinalFailureException e) {
            answer = "final failure " + e.code() + ": " + e.detail();
        }
        answers.add(answer);
        return answer;
    }

    /** The outcome when step results came from the given attempts. */
    static String outcome(int... attempts) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < STEPS.length; i++) {
            parts.add(STEPS[i] + "@" + attempts[i]);
        }
        return String.join(",", parts);
    }

    /**
     * The checks every case ends with, from outside: each step's transfer happened exactly once,
     * by a worker that held the key at that moment; the reconciler was called exactly as
     * {@code reconciled} says; every caller got {@code outcome}, and so do three more (one per
     * store instance, and a fresh worker) without anything running; the record ends COMPLETED
     * without a journal.
     */
    void assertSettled(String outcome, List<Reconciled> reconciled) {
        int transfers = bank.transfers.size();
        for (int i = 0; i < 3; i++) {
            run(worker(), NONE);
        }
        for (String step : STEPS) {
            assertThat(bank.transfersOf(step)).as("transfers of " + step + ": " + bank.transfers).isEqualTo(1);
        }
        assertThat(bank.transfers).as("every transfer ran under its worker's current claim")
                .allMatch(Transfer::underCurrentClaim);
        assertThat(bank.transfers).as("replays run nothing").hasSize(transfers);
        assertThat(bank.reconciled).as("reconciler calls").containsExactlyElementsOf(reconciled);
        assertThat(answers).as("every caller's answer").containsOnly("value " + outcome);
        StoredRecord record = fixture.store().find(key).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.journal()).isNull();
    }

    /** Every caller got the same answer, the given one. */
    void assertAnswers(String answer) {
        assertThat(answers).as("every caller's answer").containsOnly(answer);
    }
}
