package dev.idem.examples;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEvent;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;

/**
 * Multi-step work surviving crashed workers: each order runs three steps (reserve stock,
 * charge the card, create the shipment) against three downstream services, and workers die
 * at seeded random points: before a step, inside it (after the downstream effect, before the
 * step returns) and after it. A dead worker releases nothing (its store connection is cut
 * first); the next worker takes the key over once the lease has lapsed on the demo's clock,
 * which the driver moves forward, so nothing waits in real time. The audit then checks that
 * every order's three effects were applied exactly once and that calling any key again
 * replays the outcome the last worker stored.
 *
 * <p>Run with {@code java -cp examples/target/idem-examples.jar dev.idem.examples.SagaDemo
 * [--orders N] [--seed S] [--workers W] [--crash-rate P] [--max-crashes M] [--mode M]
 * [--trace]}; exits 0 when the audit passes, 1 when it fails, 2 on a bad option. The modes
 * show what each part buys: {@code plain} (one idempotency key over the whole work, no steps,
 * no downstream keys: a takeover repeats every finished call), {@code steps} (journaled
 * steps, services called without a key: only an interrupted step repeats) and the default
 * {@code steps-and-keys} (each step also sends {@code ctx.downstreamKey(step)}, so the
 * interrupted step's repeat is deduplicated downstream).
 */
public final class SagaDemo {
    private static final String[] STEPS = {"reserve", "charge", "ship"};
    private static final Duration LEASE = Duration.ofSeconds(30);
    // Every death moves the shared clock past a lease; the TTL must outlast all of them so the
    // final replay check still finds every record.
    private static final Duration TTL = Duration.ofDays(365);

    private SagaDemo() {
    }

    /** How the work is written. */
    public enum Mode {
        /** No steps, no downstream keys: the idempotency key alone. */
        PLAIN,
        /** Journaled steps; downstream services called without a key. */
        STEPS,
        /** Journaled steps, each sending its stable downstream key. */
        STEPS_AND_KEYS
    }

    /** Where in a step a worker dies. */
    public enum Phase {
        /** Before the step starts. */
        BEFORE,
        /** After the downstream effect, before the step returns (so before its journal entry). */
        INSIDE,
        /** After the step returned (its result journaled). */
        AFTER
    }

    /**
     * The demo's options.
     *
     * @param orders how many orders to place (at least 1)
     * @param seed the seed every crash decision derives from
     * @param workers how many orders run at once (at least 1)
     * @param crashRate the chance that an attempt is planned to die (0 to 1, 1 excluded)
     * @param maxCrashes the most deaths one order suffers; later attempts run clean (at least 0)
     * @param mode how the work is written
     * @param trace whether to print every death
     */
    public record Settings(int orders, long seed, int workers, double crashRate, int maxCrashes, Mode mode,
            boolean trace) {
        /** Validates the options; throws {@link IllegalArgumentException} naming the bad one. */
        public Settings {
            if (orders < 1) {
                throw new IllegalArgumentException("--orders must be at least 1, was " + orders);
            }
            if (workers < 1) {
                throw new IllegalArgumentException("--workers must be at least 1, was " + workers);
            }
            if (!(crashRate >= 0 && crashRate < 1)) {
                throw new IllegalArgumentException("--crash-rate must be in [0, 1), was " + crashRate);
            }
            if (maxCrashes < 0) {
                throw new IllegalArgumentException("--max-crashes must be at least 0, was " + maxCrashes);
            }
            if (mode == null) {
                throw new IllegalArgumentException("--mode must be given");
            }
        }

        /**
         * The default options: 200 orders, seed 42, 4 workers, crash rate 0.6, at most 3 deaths
         * per order, steps and keys, no trace.
         *
         * @return the defaults
         */
        public static Settings defaults() {
            return new Settings(200, 42, 4, 0.6, 3, Mode.STEPS_AND_KEYS, false);
        }

        /** The options followed by a value; {@code --trace} is the only flag. */
        private static final Set<String> OPTIONS_WITH_VALUES = Set.of("--orders", "--seed",
                "--workers", "--crash-rate", "--max-crashes", "--mode");

        /**
         * Reads command-line options over the defaults.
         *
         * @param args the options
         * @return the settings
         * @throws IllegalArgumentException for an unknown option, a missing or malformed value,
         *     or a value out of range
         */
        public static Settings parse(String... args) {
            Settings d = defaults();
            int orders = d.orders;
            long seed = d.seed;
            int workers = d.workers;
            double crashRate = d.crashRate;
            int maxCrashes = d.maxCrashes;
            Mode mode = d.mode;
            boolean trace = d.trace;
            for (int i = 0; i < args.length; i++) {
                String option = args[i];
                if (option.equals("--trace")) {
                    trace = true;
                    continue;
                }
                if (!OPTIONS_WITH_VALUES.contains(option)) {
                    throw new IllegalArgumentException("unknown option: " + option);
                }
                if (i + 1 == args.length) {
                    throw new IllegalArgumentException(option + " needs a value (missing value)");
                }
                String value = args[++i];
                try {
                    switch (option) {
                        case "--orders" -> orders = Integer.parseInt(value);
                        case "--seed" -> seed = Long.parseLong(value);
                        case "--workers" -> workers = Integer.parseInt(value);
                        case "--crash-rate" -> crashRate = Double.parseDouble(value);
                        case "--max-crashes" -> maxCrashes = Integer.parseInt(value);
                        case "--mode" -> mode = Mode.valueOf(value.toUpperCase(Locale.ROOT).replace('-', '_'));
                        default -> throw new IllegalArgumentException("unknown option: " + option);
                    }
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(option + " needs a number, was '" + value + "'", e);
                } catch (IllegalArgumentException e) {
                    if (option.equals("--mode")) {
                        throw new IllegalArgumentException(
                                "--mode must be plain, steps or steps-and-keys, was '" + value + "'", e);
                    }
                    throw e;
                }
            }
            return new Settings(orders, seed, workers, crashRate, maxCrashes, mode, trace);
        }
    }

    /**
     * What the audit found.
     *
     * @param orders orders placed
     * @param deathsBefore workers that died before a step
     * @param deathsInside workers that died inside a step, after its downstream effect
     * @param deathsAfter workers that died after a step was journaled
     * @param takeovers attempts that took a dead worker's key over (the engine's takeover events)
     * @param stepsRun step bodies that ran (downstream calls made)
     * @param stepsReplayed steps answered from the journal without running
     * @param downstreamCalls calls that reached the three services
     * @param effects effects the services applied
     * @param duplicates effects beyond the first per order and service (must be 0)
     * @param missing order and service pairs with no effect (must be 0)
     * @param outcomeMismatches outcomes naming another id than the one effect applied (must be 0)
     * @param replayMismatches later calls that did not replay the stored outcome (must be 0)
     */
    public record Audit(int orders, long deathsBefore, long deathsInside, long deathsAfter, long takeovers,
            long stepsRun, long stepsReplayed, long downstreamCalls, long effects, long duplicates, long missing,
            long outcomeMismatches, long replayMismatches) {
        /**
         * Whether every order's effects happened exactly once and every replay matched.
         *
         * @return true when the audit passes
         */
        public boolean passed() {
            return duplicates == 0 && missing == 0 && outcomeMismatches == 0 && replayMismatches == 0;
        }

        /**
         * All deaths, in any phase.
         *
         * @return the number of workers that died
         */
        public long deaths() {
            return deathsBefore + deathsInside + deathsAfter;
        }

        void print(PrintStream out) {
            out.println();
            out.println("=== audit ===");
            row(out, "orders", Integer.toString(orders));
            row(out, "worker deaths", deaths() + " (" + deathsBefore + " before a step, " + deathsInside
                    + " inside, " + deathsAfter + " after)");
            row(out, "takeovers", Long.toString(takeovers));
            row(out, "steps run", stepsRun + " (" + (stepsRun - 3L * orders) + " more than once)");
            row(out, "steps from journal", stepsReplayed + " (finished steps a taker-over did not run again)");
            row(out, "downstream calls", Long.toString(downstreamCalls));
            row(out, "effects applied", effects + " (" + 3L * orders + " expected)");
            row(out, "duplicate effects", duplicates + "   (must be 0)");
            row(out, "missing effects", missing + "   (must be 0)");
            row(out, "outcome mismatches", outcomeMismatches + "   (must be 0)");
            row(out, "replay mismatches", replayMismatches + "   (must be 0)");
            out.println(passed() ? "RESULT: PASS - every order's effects happened exactly once"
                    : "RESULT: FAIL - effects repeated or missing");
        }

        private static void row(PrintStream out, String name, String value) {
            out.printf(Locale.ROOT, "  %-20s %s%n", name, value);
        }
    }

    /**
     * Runs the demo from the command line.
     *
     * @param args the options, see the class comment
     * @throws Exception if the demo cannot run
     */
    public static void main(String[] args) throws Exception {
        Settings settings;
        try {
            settings = Settings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println("usage: SagaDemo [--orders N] [--seed S] [--workers W] [--crash-rate P]"
                    + " [--max-crashes M] [--mode plain|steps|steps-and-keys] [--trace]");
            System.exit(2);
            return;
        }
        System.exit(run(settings, System.out).passed() ? 0 : 1);
    }

    /**
     * Places the orders, lets workers die as planned, and audits the services and the replays.
     *
     * @param settings the options
     * @param out where progress and the audit are printed
     * @return the audit
     * @throws Exception if a worker fails for another reason than a planned death
     */
    public static Audit run(Settings settings, PrintStream out) throws Exception {
        out.printf(Locale.ROOT, "idem saga demo: %d orders (reserve, charge, ship), seed %d, %d workers, "
                + "crash rate %.2f, mode %s%n", settings.orders, settings.seed, settings.workers,
                settings.crashRate, settings.mode.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        Run run = new Run(settings, out);
        String[] outcomes = new String[settings.orders];
        ExecutorService pool = Executors.newFixedThreadPool(settings.workers);
        try {
            List<Future<?>> done = new ArrayList<>();
            AtomicInteger next = new AtomicInteger();
            for (int w = 0; w < settings.workers; w++) {
                done.add(pool.submit(() -> {
                    for (int order = next.getAndIncrement(); order < settings.orders;
                            order = next.getAndIncrement()) {
                        outcomes[order] = run.place(order);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(10, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        Audit audit = run.audit(outcomes);
        audit.print(out);
        return audit;
    }

    /** A worker dying at a planned point: nothing of it runs any more. */
    private static final class Death extends Error {
        private static final long serialVersionUID = 1L;

        Death() {
            super("worker died (simulated)", null, false, false);
        }
    }

    /** Where one attempt dies, if it reaches that point. */
    private record Plan(Phase phase, int step) {
    }

    /** One run's shared state: the store, the clock, the services and the counters. */
    private static final class Run {
        private final Settings settings;
        private final PrintStream out;
        private final MovableClock clock = new MovableClock();
        private final MemoryIdempotencyStore store;
        private final DownstreamService[] services = {
            new DownstreamService("stock", "res"), new DownstreamService("payments", "ch"),
            new DownstreamService("shipping", "shp")};
        private final AtomicLongArray deaths = new AtomicLongArray(Phase.values().length);
        private final AtomicLong takeovers = new AtomicLong();
        private final AtomicLong stepsRun = new AtomicLong();
        private final AtomicLong stepsReached = new AtomicLong();

        Run(Settings settings, PrintStream out) {
            this.settings = settings;
            this.out = out;
            this.store = MemoryIdempotencyStore.builder().clock(clock).build();
        }

        /** Places one order until some worker finishes it; returns the outcome it got. */
        String place(int order) throws Exception {
            IdempotencyKey key = IdempotencyKey.of("shop", "place-order", "order-" + order);
            String request = "{\"order\":" + order + ",\"sku\":\"X-" + (order % 7) + "\"}";
            int died = 0;
            for (int attempt = 1; ; attempt++) {
                Plan plan = died < settings.maxCrashes ? plan(order, attempt) : null;
                Connection connection = new Connection(store);
                IdempotencyEngine worker = IdempotencyEngine.builder().store(connection).clock(clock)
                        .lease(LEASE).ttl(TTL).listener(this::count).build();
                try {
                    Result<String> r = worker.execute(key, request, String.class, saga(order, plan, connection));
                    return r.value();
                } catch (Death d) {
                    died++;
                    deaths.incrementAndGet(plan.phase.ordinal());
                    if (settings.trace) {
                        out.printf(Locale.ROOT, "order %d attempt %d: worker died %s %s%n", order, attempt,
                                plan.phase.name().toLowerCase(Locale.ROOT), STEPS[plan.step]);
                    }
                    // The dead worker never releases; the next one waits out its lease, on the demo's clock.
                    clock.advance(LEASE.plusMillis(1));
                }
            }
        }

        private void count(IdempotencyEvent event) {
            if (event.type() == IdempotencyEvent.Type.LEASE_TAKEN_OVER) {
                takeovers.incrementAndGet();
            }
        }

        /** Whether and where attempt {@code attempt} of {@code order} dies: a function of the seed alone. */
        private Plan plan(int order, int attempt) {
            SplittableRandom random = new SplittableRandom(
                    settings.seed * 0x9E3779B97F4A7C15L ^ order * 0xC2B2AE3D27D4EB4FL ^ attempt * 0x165667B19E3779F9L);
            if (random.nextDouble() >= settings.crashRate) {
                return null;
            }
            return new Plan(Phase.values()[random.nextInt(Phase.values().length)], random.nextInt(STEPS.length));
        }

        private Work<String> saga(int order, Plan plan, Connection connection) {
            String orderId = "order-" + order;
            return ctx -> {
                List<String> ids = new ArrayList<>();
                for (int step = 0; step < STEPS.length; step++) {
                    int s = step;
                    dieIf(plan, Phase.BEFORE, s, connection);
                    if (settings.mode == Mode.PLAIN) {
                        ids.add(callService(orderId, s, null, plan, connection));
                    } else {
                        String downstreamKey = settings.mode == Mode.STEPS_AND_KEYS ? ctx.downstreamKey(STEPS[s]) : null;
                        stepsReached.incrementAndGet();
                        ids.add(ctx.step(STEPS[s], String.class,
                                () -> callService(orderId, s, downstreamKey, plan, connection)));
                    }
                    dieIf(plan, Phase.AFTER, s, connection);
                }
                return String.join(" ", ids);
            };
        }

        private String callService(String orderId, int step, String downstreamKey, Plan plan, Connection connection) {
            stepsRun.incrementAndGet();
            String id = services[step].call(orderId, downstreamKey);
            dieIf(plan, Phase.INSIDE, step, connection);
            return id;
        }

        private static void dieIf(Plan plan, Phase phase, int step, Connection connection) {
            if (plan != null && plan.phase == phase && plan.step == step) {
                // Cut first: a process that dies cannot tell the store to release its key.
                connection.cut();
                throw new Death();
            }
        }

        Audit audit(String[] outcomes) {
            long effects = 0;
            long duplicates = 0;
            long missing = 0;
            long outcomeMismatches = 0;
            long replayMismatches = 0;
            IdempotencyEngine checker = IdempotencyEngine.builder().store(store).clock(clock).lease(LEASE).ttl(TTL)
                    .build();
            for (int order = 0; order < outcomes.length; order++) {
                String orderId = "order-" + order;
                String[] outcomeIds = outcomes[order].split(" ");
                for (int s = 0; s < STEPS.length; s++) {
                    List<String> applied = services[s].effects(orderId);
                    effects += applied.size();
                    duplicates += Math.max(0, applied.size() - 1);
                    missing += applied.isEmpty() ? 1 : 0;
                    if (applied.size() != 1 || !applied.get(0).equals(outcomeIds[s])) {
                        outcomeMismatches++;
                    }
                }
                IdempotencyKey key = IdempotencyKey.of("shop", "place-order", orderId);
                String request = "{\"order\":" + order + ",\"sku\":\"X-" + (order % 7) + "\"}";
                Result<String> again = checker.execute(key, request, String.class, ctx -> {
                    throw new IllegalStateException("a finished order ran again");
                });
                if (!again.replayed() || !outcomes[order].equals(again.value())) {
                    replayMismatches++;
                }
            }
            long calls = 0;
            for (DownstreamService service : services) {
                calls += service.calls();
            }
            long run = stepsRun.get();
            long replayed = settings.mode == Mode.PLAIN ? 0 : stepsReached.get() - run;
            return new Audit(outcomes.length, deaths.get(Phase.BEFORE.ordinal()), deaths.get(Phase.INSIDE.ordinal()),
                    deaths.get(Phase.AFTER.ordinal()), takeovers.get(), run, replayed, calls, effects, duplicates,
                    missing, outcomeMismatches, replayMismatches);
        }
    }

    /**
     * A worker's connection to the shared store. Cutting it makes every later call fail the way
     * an unreachable store does, which is all a dead process can still "do".
     */
    private static final class Connection extends ForwardingIdempotencyStore {
        private volatile boolean cut;

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
        public void close() {
            // the workers share one store; a connection closes nothing
        }
    }

    /** The demo's time: starts at a fixed instant and moves only when the driver moves it. */
    private static final class MovableClock extends Clock {
        private final AtomicLong millis = new AtomicLong(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());

        void advance(Duration d) {
            millis.addAndGet(d.toMillis());
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }

        @Override
        public long millis() {
            return millis.get();
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            throw new UnsupportedOperationException("the demo clock is UTC only");
        }
    }
}
