package dev.idem.store.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Starts a few parties at one instant, each on a thread of its own, for races that meet:
 * every party works on the same key, released together by a barrier, so their calls
 * overlap in the store instead of merely running in the same second. Every wait is bounded.
 *
 * <p>Threads are named {@code tck-lockstep-<parties>-<index>}; the kit's own mutant stores
 * read the name to widen their deliberate race windows only inside such races.
 */
final class Lockstep {
    private static final long TIMEOUT_SECONDS = 60;

    private Lockstep() {
    }

    /** One party's part of the race; gets its thread's name for the history. */
    @FunctionalInterface
    interface Party {
        void run(String thread) throws Exception;
    }

    /**
     * Runs the parties at once and waits for all of them.
     *
     * @throws AssertionError if a party threw or the race did not finish in time
     */
    static void run(List<Party> parties) throws InterruptedException {
        run("tck-lockstep-" + parties.size() + "-", parties);
    }

    /**
     * Runs the parties at once, on threads named {@code prefix + index}, and waits for all of them.
     *
     * @throws AssertionError if a party threw or the race did not finish in time
     */
    static void run(String prefix, List<Party> parties) throws InterruptedException {
        int n = parties.size();
        CyclicBarrier start = new CyclicBarrier(n);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Party party = parties.get(i);
            String name = prefix + i;
            Thread t = new Thread(() -> {
                try {
                    start.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    party.run(name);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failure.compareAndSet(null, e);
                } catch (BrokenBarrierException | TimeoutException e) {
                    failure.compareAndSet(null, e);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, name);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) {
                threads.forEach(Thread::interrupt);
                throw new AssertionError("lockstep race did not finish within " + TIMEOUT_SECONDS + " s");
            }
        }
        if (failure.get() != null) {
            throw new AssertionError("a lockstep party failed", failure.get());
        }
    }
}
