package dev.idem.store.tck;

import dev.idem.api.time.Scheduler;
import dev.idem.api.time.Ticker;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A {@link Scheduler} for tests: tasks run only when the test calls {@link #runDue()}, in the
 * order they fall due by the given {@link Ticker} (share the one the engine and the store read,
 * such as a {@link MutableClock}'s), so asynchronous waits and heartbeats happen at simulated
 * instants and nothing waits for real time. Thread-safe; tasks run on the thread that calls
 * {@code runDue()}.
 */
public final class ManualScheduler implements Scheduler {
    private final Ticker ticker;
    private final List<Task> tasks = new ArrayList<>();
    private long sequence;

    private static final class Task {
        final long due;
        final long order;
        final Runnable body;

        Task(long due, long order, Runnable body) {
            this.due = due;
            this.order = order;
            this.body = body;
        }
    }

    /**
     * A scheduler on {@code ticker}'s time.
     *
     * @param ticker what "now" is
     */
    public ManualScheduler(Ticker ticker) {
        this.ticker = ticker;
    }

    @Override
    public synchronized Cancellable schedule(Duration delay, Runnable task) {
        Task t = new Task(ticker.read() + Math.max(0, delay.toNanos()), sequence++, task);
        tasks.add(t);
        return () -> {
            synchronized (this) {
                tasks.remove(t);
            }
        };
    }

    /**
     * Runs every task that is due now, earliest first, including tasks they schedule that are
     * due too.
     *
     * @return how many tasks ran
     */
    public int runDue() {
        int ran = 0;
        for (;;) {
            Task next;
            synchronized (this) {
                long now = ticker.read();
                next = null;
                for (Task t : tasks) {
                    if (t.due - now <= 0 && (next == null || t.due < next.due
                            || (t.due == next.due && t.order < next.order))) {
                        next = t;
                    }
                }
                if (next == null) {
                    return ran;
                }
                tasks.remove(next);
            }
            next.body.run();
            ran++;
        }
    }

    /**
     * How many tasks wait to run.
     *
     * @return the number of scheduled, not yet run, tasks
     */
    public synchronized int pending() {
        return tasks.size();
    }

    /**
     * How long from now until the earliest task falls due (zero if one is due), if any waits.
     *
     * @return the delay to the next task
     */
    public synchronized Optional<Duration> nextDue() {
        long now = ticker.read();
        return tasks.stream().mapToLong(t -> t.due - now).min().stream()
                .mapToObj(d -> Duration.ofNanos(Math.max(0, d))).findFirst();
    }
}
