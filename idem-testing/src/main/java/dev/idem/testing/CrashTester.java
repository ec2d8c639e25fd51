package dev.idem.testing;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.time.Scheduler;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.OutcomeNotStoredException;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Runs an application's own idempotent work in every crash schedule and reports what came of
 * it, for the application's test to assert on:
 *
 * <pre>{@code
 * Effects effects = new Effects();
 * FakeBank bank = new FakeBank(effects);                 // records "charge" per transfer it makes
 * CrashReport report = CrashTester.builder().effects(effects).beforeEachSchedule(bank::reset).build()
 *         .run(order, Receipt.class, ctx -> checkout.place(ctx, order, bank));
 * report.assertExactlyOnce("charge").assertAnswersAgree();
 * }</pre>
 *
 * <h2>What it does</h2>
 * First it runs the work once without a fault and notes every point a fault can hit: each step's
 * four boundaries (before it; in its action before the work's code, which for an at-most-once step
 * is after its start marker; in its action after the work's code returned, before the result is
 * journaled; after it) and each store call the engine makes. Then, one schedule per point and
 * fault, on a new idempotency key each: at a step boundary the worker dies; at a store call it dies
 * before the call, dies after the call landed, has the call fail for good, has it fail once (the
 * engine may retry), or has its lease lapse while another caller takes the key over and finishes
 * before the call goes on. A worker that dies has its store connection cut first, so it releases
 * nothing, as a dead process would not. Callers then retry, as clients do, until the key settles
 * (the lease of a dead worker lapses on the tester's clock), and one more duplicate calls.
 * {@link CrashSchedule} holds each schedule's effect counts (from {@link #effects()}), the
 * reconciler calls of at-most-once steps and every answer.
 *
 * <p>Time is simulated: the store (the memory store, or the one {@link Builder#store} builds on
 * the tester's clock) and the engines read the tester's clock, which moves only when a lease must
 * lapse or a caller waits. The work runs in the calling thread, one schedule at a time, with no
 * randomness: every run of a test gives the same report. The engines are the real engine, built
 * per caller with {@link Builder#engine}'s settings.
 *
 * <p>Not thread-safe: one {@link #run} at a time.
 */
public final class CrashTester {
    private static final Duration TTL = Duration.ofDays(30);
    private static final int MAX_CALLERS = 12;
    /** The engines' timer never fires: time moves only when the tester moves it. */
    private static final Scheduler FROZEN = (delay, task) -> () -> { };

    private final SimulatedTime time = new SimulatedTime();
    private final Effects effects;
    private final IdempotencyStore store;
    private final UnaryOperator<IdempotencyEngineBuilder> settings;
    private final Duration lease;
    private final String operation;
    private final Runnable beforeEachSchedule;
    private final String scope = "crash-test-" + UUID.randomUUID();
    private int keys;

    private CrashTester(Builder b) {
        this.store = b.store.apply(time.clock());
        this.effects = b.effects;
        this.settings = b.settings;
        this.lease = b.lease;
        this.operation = b.operation;
        this.beforeEachSchedule = b.beforeEachSchedule;
        // Fail now, naming the setting, rather than in the first schedule.
        engine(store).close();
    }

    /**
     * A crash tester over the memory store, with the engine's defaults.
     *
     * @return the tester
     */
    public static CrashTester onMemoryStore() {
        return builder().build();
    }

    /**
     * A builder: the store, the engine's settings, the lease, what runs before each schedule.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Where the test's fakes of the outside world record the effects that reach them.
     *
     * @return this tester's effect log
     */
    public Effects effects() {
        return effects;
    }

    /**
     * Runs {@code work} for {@code request} in every crash schedule.
     *
     * @param <T> the work's result type
     * @param request the request every caller sends (the same on every key)
     * @param type what a replayed result is decoded as
     * @param work the application's work, as it passes it to {@code engine.execute}
     * @return what every schedule came to
     */
    public <T> CrashReport run(Object request, Class<T> type, Work<T> work) {
        Objects.requireNonNull(type, "type");
        return run(request, work, (engine, key, w) -> engine.execute(key, request, type, w));
    }

    /**
     * Like {@link #run(Object, Class, Work)} for a generic result type.
     *
     * @param <T> the work's result type
     * @param request the request every caller sends
     * @param type what a replayed result is decoded as
     * @param work the application's work
     * @return what every schedule came to
     */
    public <T> CrashReport run(Object request, TypeReference<T> type, Work<T> work) {
        Objects.requireNonNull(type, "type");
        return run(request, work, (engine, key, w) -> engine.execute(key, request, type, w));
    }

    /** How a caller calls the engine. */
    @FunctionalInterface
    private interface Call<T> {
        Result<T> execute(IdempotencyEngine engine, IdempotencyKey key, Work<T> work);
    }

    private <T> CrashReport run(Object request, Work<T> work, Call<T> call) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(work, "work");
        List<CrashSchedule> schedules = new ArrayList<>();
        Schedule<T> dry = new Schedule<>(0, Fault.NONE, 0, 0, "", work, call);
        schedules.add(dry.go());
        int n = 1;
        for (int i = 0; i < dry.stepPoints.size(); i++) {
            schedules.add(new Schedule<>(n++, Fault.DIES, i + 1, 0, dry.stepPoints.get(i), work, call).go());
        }
        for (int c = 0; c < dry.calls.size(); c++) {
            for (Fault fault : Fault.AT_STORE_CALLS) {
                schedules.add(new Schedule<>(n++, fault, 0, c + 1, dry.calls.get(c), work, call).go());
            }
        }
        return new CrashReport(schedules);
    }

    private IdempotencyEngine engine(IdempotencyStore connection) {
        IdempotencyEngineBuilder b = settings.apply(IdempotencyEngine.builder());
        try {
            return b.store(connection).clock(time.clock()).ticker(time.ticker()).sleeper(time.sleeper())
                    .scheduler(FROZEN).random(new SplittableRandom(7)).lease(lease).ttl(TTL).build();
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException("the engine settings set something the crash tester sets itself"
                    + " (store, clock, ticker, sleeper, scheduler, random, lease, ttl; give the lease with"
                    + " CrashTester.builder().lease(...)): " + e.getMessage(), e);
        }
    }

    /** One schedule: its first worker meets the fault; then callers retry until the key settles. */
    private final class Schedule<T> {
        private final int number;
        private final Fault fault;
        private final int stepPoint;
        private final int storeCall;
        private final String point;
        private final Work<T> work;
        private final Call<T> call;
        private final IdempotencyKey key;
        private final List<Answer> answers = new ArrayList<>();
        private final List<String> reconciled = new ArrayList<>();
        private final List<IdempotencyEngine> engines = new ArrayList<>();
        /** The fault-free run's step boundaries and store calls, in order. */
        final List<String> stepPoints = new ArrayList<>();
        List<String> calls = List.of();
        private int stepPointsPassed;
        private boolean fired;

        Schedule(int number, Fault fault, int stepPoint, int storeCall, String point, Work<T> work, Call<T> call) {
            this.number = number;
            this.fault = fault;
            this.stepPoint = stepPoint;
            this.storeCall = storeCall;
            this.point = point;
            this.work = work;
            this.call = call;
            this.key = IdempotencyKey.of(scope, operation, "schedule-" + ++keys);
        }

        CrashSchedule go() {
            beforeEachSchedule.run();
            effects.begin();
            Map<String, Integer> counted = Map.of();
            try {
                Connection first = new Connection(store, storeCall, fault, this::takeOver);
                answers.add(once(first, true));
                if (fault == Fault.NONE) {
                    calls = List.copyOf(first.trace);
                }
                fired = fault == Fault.NONE || fired || first.fired;
                for (int callers = 1; !settled() && callers < MAX_CALLERS; callers++) {
                    pause(answers.get(answers.size() - 1));
                    answers.add(once(new Connection(store, 0, Fault.NONE, null), false));
                }
                if (settled()) {
                    // A duplicate after the key settled: it must get the same answer, running nothing.
                    answers.add(once(new Connection(store, 0, Fault.NONE, null), false));
                }
            } finally {
                engines.forEach(IdempotencyEngine::close);
                counted = effects.end();
            }
            String described = fault == Fault.NONE ? fault.describe("") : fault.describe(point);
            return new CrashSchedule(number, described, fired, key, counted, reconciled, answers);
        }

        private boolean settled() {
            return answers.stream().anyMatch(Answer::settles);
        }

        /** What a retrying client waits before it calls again, on the tester's clock. */
        private void pause(Answer last) {
            switch (last.kind()) {
                case CRASHED:
                case IN_PROGRESS:
                    // A dead worker's claim, or one kept after a lost write, frees within a lease.
                    time.advance(lease.plusMillis(1));
                    break;
                default:
                    // A key handed back is free a millisecond later.
                    time.advance(Duration.ofMillis(1));
            }
        }

        /** The lease of the first worker lapses, and another caller takes the key over and finishes. */
        private void takeOver() {
            time.advance(lease.plusMillis(1));
            answers.add(once(new Connection(store, 0, Fault.NONE, null), false));
        }

        /** One caller on a worker of its own; the first worker passes the schedule's step boundaries. */
        private Answer once(Connection connection, boolean first) {
            IdempotencyEngine engine = engine(connection);
            engines.add(engine);
            Consumer<String> points = !first ? p -> { } : p -> {
                if (fault == Fault.NONE) {
                    stepPoints.add(p);
                } else if (++stepPointsPassed == stepPoint) {
                    fired = true;
                    throw connection.die(p);
                }
            };
            Work<T> watched = ctx -> work.execute(new CrashingContext(ctx, points, reconciled::add));
            try {
                Result<T> r = call.execute(engine, key, watched);
                return new Answer(Answer.Kind.VALUE, r.value(), "", r.replayed());
            } catch (FinalFailureException e) {
                return new Answer(Answer.Kind.FINAL_FAILURE, null, e.code() + ": " + e.detail(), false);
            } catch (OutcomeNotStoredException e) {
                return new Answer(Answer.Kind.OUTCOME_NOT_STORED, null, e.reason(), false);
            } catch (RequestInProgressException e) {
                return new Answer(Answer.Kind.IN_PROGRESS, null, "", false);
            } catch (Crash e) {
                return new Answer(Answer.Kind.CRASHED, null, e.getMessage(), false);
            } catch (RuntimeException e) {
                // The exception's type only: its message names the key and the fencing token, which differ per run.
                return new Answer(Answer.Kind.FAILED, null, e.getClass().getSimpleName(), false);
            }
        }
    }

    /**
     * How a {@link CrashTester} is set up. Every setter checks its argument at once; each may be
     * given once.
     */
    public static final class Builder {
        private Function<Clock, IdempotencyStore> store = clock -> MemoryIdempotencyStore.builder().clock(clock)
                .build();
        private UnaryOperator<IdempotencyEngineBuilder> settings = UnaryOperator.identity();
        private Duration lease = Duration.ofSeconds(30);
        private String operation = "crash-test";
        private Runnable beforeEachSchedule = () -> { };
        private Effects effects = new Effects();
        private final Set<String> given = new HashSet<>();

        private Builder() {
        }

        private void once(String option) {
            if (!given.add(option)) {
                throw new IllegalStateException(option + " was already set");
            }
        }

        /**
         * The store to run against instead of the memory store: built by {@code onClock} on the
         * tester's clock (every idem store's builder takes a {@code clock(...)}), so leases lapse
         * when the tester says, without waiting. The tester uses one store for all schedules, each
         * schedule on a key of its own, and does not close it.
         *
         * @param onClock builds the store on the given clock
         * @return this builder
         */
        public Builder store(Function<Clock, IdempotencyStore> onClock) {
            once("store");
            this.store = Objects.requireNonNull(onClock, "onClock");
            return this;
        }

        /**
         * The application's engine settings (failure classifier, codec, encryption, ...), applied to
         * each caller's engine. They must leave to the tester what it sets itself: store, clock,
         * ticker, sleeper, scheduler, random, lease and TTL.
         *
         * @param settings what the application sets on its engine builder
         * @return this builder
         */
        public Builder engine(UnaryOperator<IdempotencyEngineBuilder> settings) {
            once("engine");
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * The lease of every claim (default 30 s, the engine's); a dead worker's key frees after it,
         * on the tester's clock.
         *
         * @param lease the lease, at least 1 ms
         * @return this builder
         * @throws IllegalArgumentException if it is shorter than 1 ms
         */
        public Builder lease(Duration lease) {
            once("lease");
            Objects.requireNonNull(lease, "lease");
            if (lease.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("lease must be at least 1 ms but was " + lease);
            }
            this.lease = lease;
            return this;
        }

        /**
         * The operation of every schedule's key (default {@code crash-test}); each schedule's key is
         * its own, in a scope of this tester's own.
         *
         * @param operation the operation name
         * @return this builder
         */
        public Builder operation(String operation) {
            once("operation");
            this.operation = Objects.requireNonNull(operation, "operation");
            IdempotencyKey.of("probe", operation, "probe");
            return this;
        }

        /**
         * What runs before each schedule: resets the test's fakes (a fake bank's balance), so
         * every schedule starts from the same outside world.
         *
         * @param reset what to run
         * @return this builder
         */
        public Builder beforeEachSchedule(Runnable reset) {
            once("beforeEachSchedule");
            this.beforeEachSchedule = Objects.requireNonNull(reset, "reset");
            return this;
        }

        /**
         * The effect log the tester counts per schedule (default: a new one, {@link CrashTester#effects()}):
         * give your own when the fakes that record into it must exist before the tester, for instance
         * to reset them in {@link #beforeEachSchedule}.
         *
         * @param effects the log the test's fakes record into
         * @return this builder
         */
        public Builder effects(Effects effects) {
            once("effects");
            this.effects = Objects.requireNonNull(effects, "effects");
            return this;
        }

        /**
         * Builds the tester.
         *
         * @return the tester
         * @throws IllegalArgumentException if the engine settings set something the tester sets itself
         */
        public CrashTester build() {
            return new CrashTester(this);
        }
    }
}
