package dev.idem.examples;

import dev.idem.engine.Reconciliation;
import dev.idem.engine.Work;
import dev.idem.testing.CrashReport;
import dev.idem.testing.CrashSchedule;
import dev.idem.testing.CrashTester;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Multi-step work under every crash the crash tester ({@code idem-testing}) can inflict: an order
 * runs three steps (reserve stock, charge the card, create the shipment) against three downstream
 * services, and {@link CrashTester} kills the worker at every step boundary (before, inside and
 * after each step) and at every store call in turn (dying before it or after it landed, the call
 * failing, the lease lapsing while another worker takes over), each schedule on a key of its own,
 * then retries as clients do until the key settles. The audit is the tester's report: each
 * service's effects per key in every schedule, and whether every caller of a key got the same
 * answer. The run is deterministic: every run prints the same.
 *
 * <p>Run with {@code java -cp examples/target/idem-examples.jar dev.idem.examples.SagaDemo
 * [--mode M] [--trace]}; exits 0 when the audit passes, 1 when it fails, 2 on a bad option. The
 * modes show what each part buys: {@code plain} (one idempotency key over the whole work, no
 * steps, no downstream keys: a retry repeats every finished call), {@code steps} (journaled steps,
 * services called without a key: an interrupted step repeats), the default {@code steps-and-keys}
 * (each step sends {@code ctx.downstreamKey(step)}, and the services deduplicate the repeat) and
 * {@code at-most-once} (the payments service is a bank without idempotency keys: the charge is an
 * at-most-once step, settled after a crash by looking the charge up by its reference).
 */
public final class SagaDemo {
    private static final String[] STEPS = {"reserve", "charge", "ship"};

    private SagaDemo() {
    }

    /** How the work is written. */
    public enum Mode {
        /** No steps, no downstream keys: the idempotency key alone. */
        PLAIN,
        /** Journaled steps; downstream services called without a key. */
        STEPS,
        /** Journaled steps, each sending its stable downstream key to a service that deduplicates. */
        STEPS_AND_KEYS,
        /** Keys for stock and shipping; the charge an at-most-once step at a bank that does not deduplicate. */
        AT_MOST_ONCE
    }

    /**
     * The demo's options.
     *
     * @param mode how the work is written
     * @param trace whether to print every crash schedule
     */
    public record Settings(Mode mode, boolean trace) {
        /** Validates the options; throws {@link IllegalArgumentException} naming the bad one. */
        public Settings {
            if (mode == null) {
                throw new IllegalArgumentException("--mode must be given");
            }
        }

        /**
         * The default options: steps and keys, no trace.
         *
         * @return the defaults
         */
        public static Settings defaults() {
            return new Settings(Mode.STEPS_AND_KEYS, false);
        }

        /**
         * Reads command-line options over the defaults.
         *
         * @param args the options
         * @return the settings
         * @throws IllegalArgumentException for an unknown option or a missing or malformed value
         */
        public static Settings parse(String... args) {
            Mode mode = defaults().mode;
            boolean trace = false;
            for (int i = 0; i < args.length; i++) {
                String option = args[i];
                if (option.equals("--trace")) {
                    trace = true;
                } else if (option.equals("--mode")) {
                    if (i + 1 == args.length) {
                        throw new IllegalArgumentException("--mode needs a value (missing value)");
                    }
                    String value = args[++i];
                    try {
                        mode = Mode.valueOf(value.toUpperCase(Locale.ROOT).replace('-', '_'));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("--mode must be plain, steps, steps-and-keys or"
                                + " at-most-once, was '" + value + "'", e);
                    }
                } else {
                    throw new IllegalArgumentException("unknown option: " + option);
                }
            }
            return new Settings(mode, trace);
        }
    }

    /**
     * What the audit found.
     *
     * @param schedules crash schedules run (each on its own key), the fault-free one included
     * @param duplicates effects beyond the first, per schedule and service, summed (must be 0)
     * @param missing schedule and service pairs with no effect (must be 0)
     * @param disagreements schedules whose callers got different answers, or whose key never settled (must be 0)
     * @param reconciled schedules in which an at-most-once step was settled by its reconciler
     * @param downstreamCalls calls that reached the three services, deduplicated or not
     */
    public record Audit(int schedules, long duplicates, long missing, long disagreements, long reconciled,
            long downstreamCalls) {
        /**
         * Whether every schedule's effects happened exactly once and its callers agreed.
         *
         * @return true when the audit passes
         */
        public boolean passed() {
            return duplicates == 0 && missing == 0 && disagreements == 0;
        }

        void print(PrintStream out) {
            out.println();
            out.println("=== audit ===");
            row(out, "crash schedules", schedules + " (each on its own key)");
            row(out, "downstream calls", Long.toString(downstreamCalls));
            row(out, "settled by reconciler", Long.toString(reconciled));
            row(out, "duplicate effects", duplicates + "   (must be 0)");
            row(out, "missing effects", missing + "   (must be 0)");
            row(out, "answers disagreeing", disagreements + "   (must be 0)");
            out.println(passed() ? "RESULT: PASS - in every crash schedule each effect happened exactly once"
                    : "RESULT: FAIL - effects repeated or missing, or callers disagreed");
        }

        private static void row(PrintStream out, String name, String value) {
            out.printf(Locale.ROOT, "  %-22s %s%n", name, value);
        }
    }

    /**
     * Runs the demo from the command line.
     *
     * @param args the options, see the class comment
     */
    public static void main(String[] args) {
        Settings settings;
        try {
            settings = Settings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println("usage: SagaDemo [--mode plain|steps|steps-and-keys|at-most-once] [--trace]");
            System.exit(2);
            return;
        }
        System.exit(run(settings, System.out).passed() ? 0 : 1);
    }

    /**
     * Runs the order in every crash schedule and audits the report.
     *
     * @param settings the options
     * @param out where the schedules (with {@code --trace}) and the audit are printed
     * @return the audit
     */
    public static Audit run(Settings settings, PrintStream out) {
        String mode = settings.mode.name().toLowerCase(Locale.ROOT).replace('_', '-');
        out.printf(Locale.ROOT, "idem saga demo: one order (reserve, charge, ship) in every crash schedule, mode %s%n",
                mode);
        List<DownstreamService> services = new ArrayList<>();
        // The services are reset before each schedule: every key starts from the same world.
        CrashTester tester = CrashTester.builder().operation("place-order")
                .beforeEachSchedule(() -> services.forEach(DownstreamService::reset)).build();
        boolean bank = settings.mode == Mode.AT_MOST_ONCE;
        services.add(new DownstreamService("reserve", "res", true, tester.effects()::record));
        services.add(new DownstreamService("charge", "ch", !bank, tester.effects()::record));
        services.add(new DownstreamService("ship", "shp", true, tester.effects()::record));

        CrashReport report = tester.run("{\"order\":42,\"sku\":\"X-1\"}", String.class,
                saga(settings.mode, services));

        if (settings.trace) {
            report.schedules().forEach(out::println);
        }
        long duplicates = 0;
        long missing = 0;
        for (CrashSchedule s : report.schedulesWhere(s -> true)) {
            for (String step : STEPS) {
                duplicates += Math.max(0, s.effects(step) - 1);
                missing += s.effects(step) == 0 ? 1 : 0;
            }
        }
        long calls = services.stream().mapToLong(DownstreamService::calls).sum();
        Audit audit = new Audit(report.schedules().size(), duplicates, missing,
                report.schedulesWhere(s -> !s.answersAgree()).size(),
                report.schedulesWhere(s -> !s.reconciled().isEmpty()).size(), calls);
        audit.print(out);
        return audit;
    }

    /** The order's work, written as {@code mode} says. */
    private static Work<String> saga(Mode mode, List<DownstreamService> services) {
        return ctx -> {
            List<String> ids = new ArrayList<>();
            for (int s = 0; s < STEPS.length; s++) {
                DownstreamService service = services.get(s);
                String step = STEPS[s];
                switch (mode) {
                    case PLAIN:
                        ids.add(service.call(null));
                        break;
                    case STEPS:
                        ids.add(ctx.step(step, String.class, () -> service.call(null)));
                        break;
                    default:
                        if (mode == Mode.AT_MOST_ONCE && step.equals("charge")) {
                            // The bank has no idempotency keys: the charge runs at most once, and a charge whose
                            // worker died is looked up by the reference it carried.
                            ids.add(ctx.atMostOnceStep(step, String.class, () -> service.call(ctx.downstreamKey(step)),
                                    started -> service.find(started.downstreamKey()).map(Reconciliation::happened)
                                            .orElseGet(Reconciliation::didNotHappen)));
                        } else {
                            ids.add(ctx.step(step, String.class, () -> service.call(ctx.downstreamKey(step))));
                        }
                }
            }
            return String.join(" ", ids);
        };
    }
}
