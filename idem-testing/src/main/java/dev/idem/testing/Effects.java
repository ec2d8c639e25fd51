package dev.idem.testing;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Where the test's fakes of the outside world count what reached them: a fake bank calls
 * {@code effects.record("charge")} for every transfer it makes, a fake mailer
 * {@code record("e-mail")} for every message. The crash tester runs one crash schedule at a time,
 * each on its own idempotency key, and counts every effect recorded meanwhile for that schedule's
 * key. Count the effect where the outside world sees it (in the fake), not in the work: an effect
 * counted in the work cannot show that it happened twice. A log serves one tester at a time.
 * Thread-safe.
 */
public final class Effects {
    private Map<String, Integer> current;

    /** An empty log; give it to the tester with {@link CrashTester.Builder#effects(Effects)}, or take the tester's own. */
    public Effects() {
    }

    /**
     * Records that the outside world saw the effect {@code name} once more.
     *
     * @param name the effect's name, as the test asserts on it ("charge", "e-mail")
     * @throws IllegalStateException if no crash schedule is running (an effect recorded outside
     *     {@link CrashTester#run} cannot be given to a key)
     */
    public synchronized void record(String name) {
        Objects.requireNonNull(name, "name");
        if (current == null) {
            throw new IllegalStateException("effect '" + name + "' was recorded while no crash schedule runs: record"
                    + " effects from the fakes the work calls, while CrashTester.run runs it");
        }
        current.merge(name, 1, Integer::sum);
    }

    synchronized void begin() {
        current = new TreeMap<>();
    }

    synchronized Map<String, Integer> end() {
        Map<String, Integer> counted = current;
        current = null;
        return counted;
    }
}
