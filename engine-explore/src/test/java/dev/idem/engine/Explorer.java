package dev.idem.engine;

import java.util.ArrayList;
import java.util.List;
import org.jetbrains.lincheck.Lincheck;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.LincheckSettings;

/**
 * Runs a scenario under Lincheck's model checker: every thread switch happens at a point Lincheck
 * chose (a shared read or write, a lock, a park), so the interleavings explored are the same in
 * every run on every machine, however loaded; nothing waits on time. A scenario that fails in any
 * explored schedule fails the test with {@link LincheckAssertionError}, whose message is the
 * schedule: the threads side by side, each switch and what each thread read and wrote before it.
 *
 * <p>{@link #findsBug} is the self-test form: it passes only when the explorer finds the planted
 * bug, and prints the schedule it found to the test's output file.
 */
final class Explorer {
    /**
     * Schedules explored per scenario: each scenario here is small (a few threads of a few steps),
     * so this covers its switch points many times over in a few seconds. Raise it with
     * {@code -Didem.explore.invocations=N} to search harder after a change.
     */
    static final int INVOCATIONS = Integer.getInteger("idem.explore.invocations", 300);

    private Explorer() {
    }

    /** Explores {@code scenario}; a schedule in which it throws fails the test with that schedule. */
    static void explore(Runnable scenario) {
        explore(INVOCATIONS, scenario);
    }

    /**
     * Explores {@code scenario} in {@code invocations} schedules: for a scenario that builds a whole
     * engine each time, whose few switch points that many cover.
     */
    static void explore(int invocations, Runnable scenario) {
        warmUp(scenario);
        Lincheck.runConcurrentTest(invocations, scenario);
    }

    /**
     * Explores {@code scenario} with loops allowed {@code loopBound} iterations before the model
     * checker takes one for a livelock (its default, 50, is less than one walk over a
     * ConcurrentHashMap's 128 buckets, which a whole engine's replay path makes). The settings go
     * through Lincheck's internal entry point, the one {@link Lincheck#runConcurrentTest} calls.
     */
    static void explore(int invocations, int loopBound, Runnable scenario) {
        warmUp(scenario);
        Lincheck.runConcurrentTestInternal$lincheck(invocations, new LincheckSettings(true, 10, loopBound, 20), scenario);
    }

    /**
     * Explores {@code scenario} against a planted bug: passes only if some schedule breaks it, and
     * returns (and prints) the failing schedule.
     */
    static String findsBug(String plant, Runnable scenario) {
        warmUp(scenario);
        try {
            Lincheck.runConcurrentTest(INVOCATIONS, scenario);
        } catch (LincheckAssertionError found) {
            String schedule = found.getMessage();
            if (schedule == null || !schedule.contains("interleaving leads to the error")) {
                throw new AssertionError("the explorer failed without a schedule for " + plant, found);
            }
            System.out.println("The explorer found the planted bug \"" + plant + "\":" + schedule);
            return schedule;
        }
        throw new AssertionError("the explorer missed the planted bug \"" + plant + "\" in " + INVOCATIONS
                + " schedules");
    }

    /**
     * Runs {@code scenario} once outside the model checker, its outcome ignored (the explorer judges
     * it). Lincheck bounds each explored run by 30 seconds of wall-clock time, and a first run that
     * loads and initializes the engine's classes (Jackson's among them) under the checker, where
     * every shared access is a switch point, took longer than that on a loaded machine. Loaded here,
     * those initializers run plainly and the explored runs take milliseconds.
     */
    private static void warmUp(Runnable scenario) {
        Thread t = new Thread(() -> {
            try {
                scenario.run();
            } catch (RuntimeException | Error ignored) {
                // A planted bug may show here already; the explorer still has to find it.
            }
        }, "explore-warm-up");
        t.setDaemon(true);
        t.start();
        try {
            t.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /**
     * Runs each party on its own thread and waits for all of them; a party that failed fails the
     * scenario on the main thread (where the model checker sees it) with the party's failure.
     */
    static void parties(Runnable... parties) {
        List<Thread> threads = new ArrayList<>(parties.length);
        Throwable[] failed = new Throwable[parties.length];
        for (int i = 0; i < parties.length; i++) {
            Runnable party = parties[i];
            int index = i;
            Thread t = new Thread(() -> {
                try {
                    party.run();
                } catch (RuntimeException | Error e) {
                    failed[index] = e;
                }
            });
            threads.add(t);
            t.start();
        }
        joinAll(threads);
        for (int i = 0; i < failed.length; i++) {
            if (failed[i] != null) {
                throw new AssertionError("party " + (i + 1) + " failed: " + failed[i].getMessage(), failed[i]);
            }
        }
    }

    static void joinAll(List<Thread> threads) {
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }

    /** A check of the scenario's outcome: an {@link AssertionError} makes the schedule a failing one. */
    static void check(boolean holds, String what) {
        if (!holds) {
            throw new AssertionError(what);
        }
    }
}
