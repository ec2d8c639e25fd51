package dev.idem.engine.tck;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.DeadlineExceededException;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Deadline;
import dev.idem.api.time.Scheduler;
import dev.idem.api.time.Ticker;
import dev.idem.engine.CallOptions;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.InProgressPolicy;
import dev.idem.engine.OutcomeNotStoredException;
import dev.idem.engine.Result;
import dev.idem.engine.WorkFailedException;
import dev.idem.engine.tck.FaultyConnection.Call;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The fault-injection runs of {@link FaultInjectionContract}: a script runs against the store
 * under test with the N-th store call of its first worker failed by a {@link Fault}, for every
 * N and every fault in turn, and each run is then checked from outside. Single-threaded and
 * seeded, so a failure names everything needed to replay it.
 */
final class FaultCampaign {
    /** How the engines' clocks stand to the store's. */
    enum Clocks {
        /** The engines' wall clock reads what the store's does. */
        SAME,
        /**
         * The store's clock runs 5 to 25 s ahead of the engines' wall clock (a server-clock store,
         * a skewed node) when the failed call's number is odd, behind it when it is even.
         */
        SKEWED,
        /** The engines' wall clock jumps an hour back and forth while they wait (they wait for duplicates here). */
        WALL_STEPPED_IN_WAITS
    }

    /** Whether the callers give the engine a deadline. */
    enum Deadlines {
        /** No call carries a deadline. */
        NONE,
        /**
         * Every call carries a deadline of half the lease, as a client's {@code X-Request-Timeout}
         * would, and its work takes a little longer than that: the deadline runs out during the
         * work, so the completion (and a later step's journal write) comes after it, and a lapse
         * fault lets it run out during the claim too. The claims take a lease of three quarters of
         * the engine's (its {@code minBudgetLease}), so a key whose worker crashed or kept its
         * claim must free within that shorter lease. A retry carries a fresh deadline, as a
         * client's next attempt does.
         */
        PER_CALL
    }

    /** The scripted work, as a client would run it. */
    enum Script {
        /** One effect, then a value. */
        PLAIN(false, "pay"),
        /** A transient failure on the first attempt, then one effect and a value. */
        PLAIN_RETRIED(false, "pay"),
        /** One effect, then a failure classified final. */
        FINAL_FAILURE(false, "try-charge"),
        /** Three steps with a lease heartbeat after the first. */
        STEPS(true, "reserve", "charge", "ship"),
        /** Three steps; the second fails transiently on the first attempt before its effect. */
        STEPS_RETRIED(true, "reserve", "charge", "ship"),
        /** An atomic step whose effect commits with its journal entry (the store's checkpoint), then a step. */
        ATOMIC_STEP(true, "charge", "ship"),
        /** Work whose effect commits with its completion, which the engine then reads back. */
        ATOMIC_WORK(true, "book"),
        /** {@code executeAsync}: one effect, then a stage completed with a value. */
        ASYNC_PLAIN(false, "pay"),
        /** {@code executeAsync}: one effect, then a stage failed with a failure classified final. */
        ASYNC_FINAL_FAILURE(false, "try-charge");

        final boolean stepped;
        final Set<String> effects;

        Script(boolean stepped, String... effects) {
            this.stepped = stepped;
            this.effects = Set.of(effects);
        }

        /** Whether the script calls {@code executeAsync} (on the store's non-blocking form, if it has one). */
        boolean async() {
            return this == ASYNC_PLAIN || this == ASYNC_FINAL_FAILURE;
        }
    }

    private static final int MAX_CALLS = 40;
    /** The longest a run waits for an asynchronous call's answer. */
    private static final Duration ASYNC_ANSWER = Duration.ofSeconds(60);
    /** The asynchronous workers' threads and timer, shared by every engine of the campaign. */
    private static final ExecutorService ASYNC_THREADS = Executors.newCachedThreadPool(daemons("fault-async-"));
    private static final Scheduler ASYNC_TIMER = Scheduler.of(Executors.newScheduledThreadPool(1,
            daemons("fault-async-timer-")));
    private static final int MAX_TRIES = 8;
    private static final Duration SLACK = Duration.ofMillis(2);
    /**
     * The timer of every worker: it never runs a task. A worker stands still while another runs
     * (the kit is single-threaded), and so does its heartbeat; the work itself takes no time.
     */
    private static final Scheduler FROZEN = (delay, task) -> () -> { };

    /** A transient failure of the work. */
    static final class Flaky extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Flaky() {
            super("flaky (scripted)", null, false, false);
        }
    }

    /** A failure the classifier makes final. */
    static final class Declined extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Declined() {
            super("declined (scripted)", null, false, false);
        }
    }

    private final StoreFixture fixture;
    private final Function<IdempotencyStore, IdempotencyEngineBuilder> engineBuilder;
    private final long seed;
    private final String scope;
    private final Duration lease;
    private final Duration ttl;
    private final ObjectMapper mapper = new ObjectMapper();
    private int runs;
    /** The store's clock now: read once, then moved by what the runs let pass. */
    private Instant storeNow;
    /** What the callers' deadlines are measured on, given the run's ticker; the kit's own tests change it. */
    private UnaryOperator<Ticker> deadlineTicker = UnaryOperator.identity();

    FaultCampaign(StoreFixture fixture, Function<IdempotencyStore, IdempotencyEngineBuilder> engineBuilder,
            long seed, String scope) {
        this.fixture = fixture;
        this.engineBuilder = engineBuilder;
        this.seed = seed;
        this.scope = scope;
        this.lease = fixture.lease();
        // Records must outlive every lease a run lets lapse, or a late duplicate would find the key new.
        this.ttl = lease.multipliedBy(100);
    }

    /**
     * Measures the callers' deadlines on what {@code ticker} makes of the run's ticker, while the
     * campaign still judges them on the run's own: the kit's own tests give an engine a deadline
     * that does not see the time a claim spent in flight, as an engine that read it only before
     * its claim would.
     */
    FaultCampaign deadlinesOn(UnaryOperator<Ticker> ticker) {
        this.deadlineTicker = ticker;
        return this;
    }

    /**
     * Runs {@code script} under {@code clocks} with each fault at each store call in turn, until N
     * passes the last call (that run is the fault-free baseline).
     *
     * @return how many runs were made
     * @throws AssertionError naming the first run that broke the contract
     */
    int run(Clocks clocks, Script script) {
        return run(clocks, Deadlines.NONE, script);
    }

    /**
     * Runs {@code script} under {@code clocks}, its calls carrying {@code deadlines}, with each
     * fault at each store call in turn.
     *
     * @return how many runs were made
     * @throws AssertionError naming the first run that broke the contract
     */
    int run(Clocks clocks, Deadlines deadlines, Script script) {
        if (storeNow == null) {
            IdempotencyKey probe = IdempotencyKey.of(scope, "clock-probe", "probe");
            storeNow = fixture.store().claim(probe, new byte[] {1}, 1, lease, ttl).storeTime();
        }
        // The fault-free run first: its calls are the ones a fault can hit, each N in turn
        // (up to the N-th call every faulted run makes the same calls as this one).
        int calls = go(new Run(clocks, deadlines, script, 0, Fault.TRANSIENT));
        if (calls > MAX_CALLS) {
            throw new AssertionError(script + " made " + calls + " store calls, more than " + MAX_CALLS);
        }
        int made = 1;
        for (int n = 1; n <= calls; n++) {
            for (Fault fault : faults(clocks, deadlines)) {
                Run run = new Run(clocks, deadlines, script, n, fault);
                go(run);
                if (run.faulted.firedOn == null) {
                    throw run.broken("the fault never fired: the run made fewer calls than the fault-free one");
                }
                made++;
            }
        }
        return made;
    }

    /** Makes and checks a run; returns how many calls its first worker made. */
    private int go(Run run) {
        try {
            return run.go();
        } finally {
            storeNow = storeNow.plus(run.time.passed());
        }
    }

    /**
     * The faults a run meets under {@code clocks}: all of them with one clock; with skewed or
     * stepped clocks, those that make time matter (a lapse, a takeover, a crash whose claim must
     * lapse, a failure that keeps the claim until its lease lapses).
     */
    static Set<Fault> faults(Clocks clocks, Deadlines deadlines) {
        if (deadlines == Deadlines.PER_CALL) {
            // Where a deadline bears: time passing mid-call, and a claim left to lapse (the lease it shortened).
            return EnumSet.of(Fault.PERMANENT, Fault.LAPSE_BEFORE, Fault.TAKEOVER_BEFORE, Fault.TAKEOVER_AFTER,
                    Fault.CRASH_BEFORE, Fault.CRASH_AFTER);
        }
        switch (clocks) {
            case SAME:
                return EnumSet.allOf(Fault.class);
            case SKEWED:
                // Where the engine judges a lease: a lapse it must renew, a takeover it must notice, a dead claim.
                return EnumSet.of(Fault.LAPSE_BEFORE, Fault.TAKEOVER_AFTER, Fault.CRASH_AFTER);
            default:
                // Where a duplicate waits for a claim to lapse: a dead worker's, or one kept after a failed write.
                return EnumSet.of(Fault.PERMANENT, Fault.CRASH_BEFORE, Fault.CRASH_AFTER);
        }
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return task -> {
            Thread t = new Thread(task, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** What a caller got, when it settles the key. */
    record Answer(String kind, String body) {
        static Answer of(Result<String> r) {
            return new Answer("value", r.value());
        }
    }

    /** One worker: a connection and an engine over it. */
    private record Worker(String name, FaultyConnection connection, IdempotencyEngine engine) {
    }

    /** One scripted run with one fault. */
    private final class Run implements FaultyConnection.Hooks {
        private final Clocks clocks;
        private final Deadlines deadlines;
        private final Script script;
        private final int n;
        private final Fault fault;
        private final IdempotencyKey key;
        private final String request;
        final SimulatedTime time;
        private final SplittableRandom random;
        /** How far the store's clock runs ahead of the engines' wall clock (negative: behind). */
        private final Duration skew;
        private final Ledger ledger = new Ledger();
        private final List<Answer> answers = new ArrayList<>();
        private Duration waited = Duration.ZERO;
        private String exposed;
        private int workers;
        private FaultyConnection faulted;
        /** How a work started after its caller's deadline had passed, or null. */
        private String lateStart;

        Run(Clocks clocks, Deadlines deadlines, Script script, int n, Fault fault) {
            this.clocks = clocks;
            this.deadlines = deadlines;
            this.script = script;
            this.n = n;
            this.fault = fault;
            this.key = IdempotencyKey.of(scope, "order", "run-" + ++runs);
            this.request = "{\"order\":\"" + key.key() + "\"}";
            this.random = new SplittableRandom(seed * 1_000_003 + runs);
            // 5 to 25 s of skew, by the seed: enough to move any deadline compared across clocks.
            Duration skew = Duration.ofMillis(5_000 + random.nextLong(20_000));
            this.skew = clocks != Clocks.SKEWED ? Duration.ZERO : n % 2 == 1 ? skew : skew.negated();
            Instant wallStart = storeNow.minus(this.skew);
            this.time = new SimulatedTime(fixture, wallStart, clocks == Clocks.WALL_STEPPED_IN_WAITS);
        }

        /** Drives the run and checks it; returns how many calls its first worker made. */
        int go() {
            Worker first = worker(fixture.store(), n, fault);
            faulted = first.connection();
            Answer answer = drive(first);
            answers.add(answer);
            check(answer);
            return faulted.calls();
        }

        private Worker worker(IdempotencyStore store, int failAt, Fault f) {
            String name = "worker-" + ++workers;
            FaultyConnection connection = new FaultyConnection(store, failAt, f, this);
            InProgressPolicy policy = clocks == Clocks.WALL_STEPPED_IN_WAITS
                    ? InProgressPolicy.waitUpTo(lease.multipliedBy(2)) : InProgressPolicy.failFast();
            SplittableRandom jitter = random.split();
            IdempotencyEngineBuilder builder = engineBuilder.apply(connection);
            if (script.async()) {
                builder.asyncExecutor(ASYNC_THREADS);
            }
            IdempotencyEngine engine = builder.ttl(ttl).clock(time.wall())
                    .ticker(time.ticker()).sleeper(time.sleeper()).random(jitter::nextLong).inProgress(policy)
                    .retryAfterHint(lease).objectMapper(mapper)
                    // A worker retried on the same engine must get what the store holds, not what its cache took.
                    .nearCache(16)
                    .minBudgetLease(lease.multipliedBy(3).dividedBy(4))
                    // The async call pauses between its completion's retries on the scheduler: a real one.
                    .scheduler(script.async() ? ASYNC_TIMER : FROZEN)
                    .failureClassifier(e -> e instanceof Declined ? FailureDecision.finalFailure("declined",
                            "card declined") : FailureDecision.transientFailure())
                    .build();
            connection.lease = claimLease();
            connection.onWriteLanded = () -> ledger.recorded(name);
            connection.onFault = call -> exposed = exposedBy(name, call);
            return new Worker(name, connection, engine);
        }

        /**
         * The effect the fault may legitimately make run twice (with one downstream key), or null:
         * one the worker caused but whose journal write or completion the fault lost or outran,
         * or, for plain work, the work itself when the key is taken over from under it (plain
         * work has no step boundary at which the engine could check its lease).
         */
        private String exposedBy(String worker, Call call) {
            boolean recordingWrite = call == Call.CHECKPOINT || call == Call.COMPLETE;
            if (recordingWrite && (fault == Fault.CRASH_BEFORE || fault == Fault.TAKEOVER_BEFORE
                    || fault == Fault.PERMANENT)) {
                return ledger.unrecorded(worker);
            }
            if (!script.stepped && call == Call.CLAIM && fault == Fault.TAKEOVER_AFTER) {
                return script.effects.iterator().next();
            }
            return null;
        }

        /** A call's budget under {@link Deadlines#PER_CALL}: half the lease. */
        private Duration budget() {
            return lease.dividedBy(2);
        }

        /** The lease a claim takes: with deadlines, what the engine's minBudgetLease lets them cut it to. */
        private Duration claimLease() {
            return deadlines == Deadlines.PER_CALL ? lease.multipliedBy(3).dividedBy(4) : lease;
        }

        /** The time the work takes: with deadlines, a little more than the deadline gives it. */
        private void work() {
            if (deadlines == Deadlines.PER_CALL) {
                time.advance(budget().plus(SLACK));
            }
        }

        /** The options of one call: a fresh deadline per call, as a client's attempt carries. */
        private CallOptions options(long due) {
            return deadlines == Deadlines.PER_CALL
                    ? CallOptions.builder().deadline(Deadline.after(budget(), deadlineTicker.apply(time.ticker())))
                            .build()
                    : CallOptions.defaults();
        }

        /** The ticker reading at which a call made now runs out of time (with deadlines). */
        private long due() {
            return time.ticker().read() + budget().toNanos();
        }

        /**
         * The work of a call whose deadline falls at {@code due} starts now: with deadlines, it must
         * not have passed (the engine refuses a claim won too late and gives the key back unrun).
         */
        private void started(long due) {
            long late = time.ticker().read() - due;
            if (deadlines == Deadlines.PER_CALL && late >= 0 && lateStart == null) {
                lateStart = "the work started " + Duration.ofNanos(late).toMillis() + " ms after its caller's deadline"
                        + " had passed (during the claim): a claim won too late must be given back unrun";
            }
        }

        @Override
        public void lapse() {
            time.advance(lease.plus(SLACK).plus(fixture.slack()));
        }

        @Override
        public void takeOver() {
            answers.add(drive(worker(fixture.otherStore(), 0, Fault.TRANSIENT)));
        }

        /** Calls until the key settles, as a client that retries would; a crashed worker is replaced. */
        private Answer drive(Worker start) {
            Worker w = start;
            for (int tries = 0; tries < MAX_TRIES; tries++) {
                Outcome o = once(w);
                if (o.answer != null) {
                    return o.answer;
                }
                if (o.crashed) {
                    w = worker(fixture.otherStore(), 0, Fault.TRANSIENT);
                } else if (o.retryAfter != null) {
                    Duration pause = o.retryAfter.plus(SLACK);
                    waited = waited.plus(pause);
                    time.advance(pause);
                }
            }
            throw broken("the key did not settle within " + MAX_TRIES + " calls");
        }

        /** What one call got: a settled answer, or a reason to call again. */
        private final class Outcome {
            Answer answer;
            boolean replayed;
            boolean crashed;
            Duration retryAfter;
        }

        private Outcome once(Worker w) {
            Outcome o = new Outcome();
            try {
                Result<String> r = execute(w);
                o.answer = Answer.of(r);
                o.replayed = r.replayed();
            } catch (FinalFailureException e) {
                o.answer = new Answer("final failure", e.code() + ": " + e.detail());
            } catch (OutcomeNotStoredException e) {
                o.answer = new Answer("outcome not stored", e.reason());
            } catch (RequestInProgressException e) {
                o.retryAfter = e.retryAfter();
            } catch (FaultyConnection.Crash e) {
                o.crashed = true;
            } catch (StoreUnavailableException | LeaseLostException | Flaky | WorkFailedException
                    | DeadlineExceededException e) {
                // Transient: the client calls again (with a fresh deadline, if it gives one).
            } catch (RuntimeException e) {
                throw broken("a caller got " + e, e);
            }
            return o;
        }

        private void effect(Worker w, String name, String downstreamKey) {
            ledger.effect(name, downstreamKey, w.name());
        }

        private Result<String> execute(Worker w) {
            IdempotencyEngine engine = w.engine();
            long due = due();
            switch (script) {
                case ASYNC_PLAIN:
                    return answered(engine.executeAsync(key, request, String.class, options(due), ctx -> {
                        started(due);
                        work();
                        effect(w, "pay", ctx.downstreamKey());
                        return CompletableFuture.completedFuture("pay@" + ctx.attempt());
                    }));
                case ASYNC_FINAL_FAILURE:
                    return answered(engine.executeAsync(key, request, String.class, options(due), ctx -> {
                        started(due);
                        work();
                        effect(w, "try-charge", ctx.downstreamKey());
                        return CompletableFuture.<String>failedFuture(new Declined());
                    }));
                case PLAIN:
                case PLAIN_RETRIED:
                    return engine.execute(key, request, String.class, options(due), ctx -> {
                        started(due);
                        work();
                        if (script == Script.PLAIN_RETRIED && ctx.attempt() == 1) {
                            throw new Flaky();
                        }
                        effect(w, "pay", ctx.downstreamKey());
                        return "pay@" + ctx.attempt();
                    });
                case FINAL_FAILURE:
                    return engine.execute(key, request, String.class, options(due), ctx -> {
                        started(due);
                        work();
                        effect(w, "try-charge", ctx.downstreamKey());
                        throw new Declined();
                    });
                case STEPS:
                case STEPS_RETRIED:
                    return engine.execute(key, request, String.class, options(due), ctx -> {
                        started(due);
                        work();
                        String a = step(w, ctx, "reserve", false);
                        if (script == Script.STEPS) {
                            // The lease it holds, renewed: a work that asks for more blocks the key longer if it dies.
                            ctx.extendLease(claimLease());
                        }
                        String b = step(w, ctx, "charge", script == Script.STEPS_RETRIED);
                        return a + "," + b + "," + step(w, ctx, "ship", false);
                    });
                case ATOMIC_STEP:
                    return engine.execute(key, request, String.class, options(due), ctx -> {
                        started(due);
                        work();
                        String a = ctx.atomicStep("charge", String.class, cp -> {
                            String result = "charge@" + ctx.attempt();
                            byte[] journal = cp.journalWith(result);
                            w.connection().commitWith(() -> effect(w, "charge", ctx.downstreamKey("charge")));
                            if (!w.connection().checkpoint(ctx.key(), cp.fencingToken(), journal)) {
                                throw new LeaseLostException(ctx.key(), cp.fencingToken());
                            }
                            return result;
                        });
                        return a + "," + step(w, ctx, "ship", false);
                    });
                default:
                    return engine.executeAtomically(key, request, String.class, options(due),
                            (ctx, completion) -> {
                                started(due);
                                work();
                                String value = "book@" + ctx.attempt();
                                w.connection().commitWith(() -> effect(w, "book", ctx.downstreamKey()));
                                if (!w.connection().complete(ctx.key(), ctx.fencingToken(), completion.encode(value),
                                        completion.ttl())) {
                                    throw new LeaseLostException(ctx.key(), ctx.fencingToken());
                                }
                                return value;
                            });
            }
        }

        /** An asynchronous call's answer, waited for (bounded); its failure thrown as the blocking call would. */
        private Result<String> answered(CompletableFuture<Result<String>> answer) {
            try {
                return answer.get(ASYNC_ANSWER.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw broken("interrupted while waiting for an asynchronous answer", e);
            } catch (TimeoutException e) {
                throw broken("an asynchronous call did not answer within " + ASYNC_ANSWER, e);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof RuntimeException) {
                    throw (RuntimeException) cause;
                }
                if (cause instanceof Error) {
                    throw (Error) cause;
                }
                throw broken("an asynchronous call failed with " + cause, cause);
            }
        }

        private String step(Worker w, ExecutionContext ctx, String name, boolean flakyFirst) throws Exception {
            return ctx.step(name, String.class, () -> {
                if (flakyFirst && ctx.attempt() == 1) {
                    throw new Flaky();
                }
                effect(w, name, ctx.downstreamKey(name));
                return name + "@" + ctx.attempt();
            });
        }

        private String baseline() {
            switch (script) {
                case PLAIN:
                case ASYNC_PLAIN:
                    return "value pay@1";
                case PLAIN_RETRIED:
                    return "value pay@2";
                case FINAL_FAILURE:
                case ASYNC_FINAL_FAILURE:
                    return "final failure declined: card declined";
                case STEPS:
                    return "value reserve@1,charge@1,ship@1";
                case STEPS_RETRIED:
                    return "value reserve@1,charge@2,ship@2";
                case ATOMIC_STEP:
                    return "value charge@1,ship@1";
                default:
                    return "value book@1";
            }
        }

        private void check(Answer answer) {
            if (lateStart != null) {
                throw broken(lateStart);
            }
            for (Answer other : answers) {
                if (!other.equals(answer)) {
                    throw broken("callers got different answers " + answers);
                }
            }
            int effects = ledger.size();
            Outcome late = once(worker(fixture.otherStore(), 0, Fault.TRANSIENT));
            if (late.answer == null) {
                throw broken("a duplicate after the run found the key unsettled");
            }
            if (!late.answer.equals(answer) || (answer.kind().equals("value") && !late.replayed)) {
                throw broken("a duplicate after the run got " + late.answer + ", not a replay of " + answer);
            }
            if (ledger.size() != effects) {
                throw broken("a duplicate of the settled key ran the work again");
            }
            StoredRecord record = fixture.store().find(key).orElse(null);
            if (record == null || record.state() != RecordState.COMPLETED || record.journal() != null) {
                throw broken("the settled key's record is " + record + ", not COMPLETED without a journal");
            }
            String wrong = ledger.violation(script.effects, exposed, answer.kind().equals("value"));
            if (wrong != null) {
                throw broken(wrong);
            }
            if (faulted.gaveBackInDoubt != null) {
                throw broken("the worker gave the key back (" + faulted.gaveBackInDoubt + ") while the effect it"
                        + " recorded was not on record: a retry could run it again at once, not after the lease");
            }
            Duration stuck = waited.plus(time.slept());
            if (stuck.compareTo(claimLease().plusSeconds(2)) > 0) {
                throw broken("callers waited " + stuck + " for the key, more than one lease (" + claimLease()
                        + (deadlines == Deadlines.PER_CALL ? ", what the callers' deadlines cut it to" : "") + ")");
            }
            if (faulted.firedOn == null) {
                String got = answer.kind() + " " + answer.body();
                if (!got.equals(baseline())) {
                    throw broken("the fault-free run answered " + got + "; expected " + baseline());
                }
            }
        }

        private AssertionError broken(String what) {
            return broken(what, null);
        }

        private AssertionError broken(String what, Throwable cause) {
            String call = faulted == null || faulted.firedOn == null ? "no call (fault-free run)"
                    : "call " + n + " (" + faulted.firedOn + ")";
            AssertionError e = new AssertionError("fault injection broke the contract: " + what + "\n  run: "
                    + script + " on " + fixture.store().getClass().getSimpleName() + ", clocks " + clocks
                    + (deadlines == Deadlines.NONE ? "" : ", a deadline of " + budget() + " per call")
                    + (skew.isZero() ? "" : " (the store's clock " + skew.abs().toMillis() + " ms "
                            + (skew.isNegative() ? "behind" : "ahead") + ")")
                    + ", fault " + fault + " at " + call + ", seed " + seed + ", key " + key.key()
                    + "\n  effects: " + ledger + "\n  answers: " + answers
                    + (exposed == null ? "" : "\n  the fault exposed: " + exposed), cause);
            return e;
        }
    }
}
