package dev.idem.store.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A crew of threads for races that meet: in each round every party works on the same key and
 * all start at one instant, so their calls overlap inside the store instead of merely running
 * in the same millisecond.
 *
 * <p>The threads are made once per crew and reused for every round, so a round costs
 * microseconds and a test can afford many. A party does not wait on a lock for the start: it
 * says it is ready and spins until every party is (the last one to get ready starts the round),
 * so the parties already on a CPU call the store within nanoseconds of each other rather than
 * one wake-up apart. Before its call each
 * party spins for a seeded random number of pauses, a few microseconds at most, so that from
 * round to round the parties meet at every offset (who reads first, who writes in between)
 * rather than always in the order the scheduler happens to prefer. Nothing here knows the
 * store: the overlaps are real ones. Every wait is bounded.
 */
final class Lockstep implements AutoCloseable {
    private static final long TIMEOUT_SECONDS = 60;
    /** Pauses of jitter at most; a pause is tens of nanoseconds, so this spans a few microseconds. */
    private static final int MAX_JITTER = 64;
    /** Pure spinning before a waiting party also yields its CPU (to parties not yet running). */
    private static final int SPINS_BEFORE_YIELD = 20_000;

    /** One party's part of the race; gets its thread's name for the history. */
    @FunctionalInterface
    interface Party {
        void run(String thread) throws Exception;
    }

    private final List<Worker> workers = new ArrayList<>();
    private final Random jitter;
    private final AtomicInteger ready = new AtomicInteger();
    private volatile long started;
    private long round;

    /**
     * A crew of {@code size} threads, its jitter drawn from {@code seed}.
     *
     * @param size the most parties of one round
     * @param seed the seed of the jitter
     */
    Lockstep(int size, long seed) {
        this.jitter = new Random(seed);
        for (int i = 0; i < size; i++) {
            Worker w = new Worker("tck-lockstep-" + i);
            workers.add(w);
            w.thread.start();
        }
    }

    /**
     * Runs one round: party {@code i} on thread {@code i}, all started at one instant, and waits for all.
     *
     * @throws AssertionError if a party threw or the round did not finish in time
     */
    void round(List<Party> parties) throws InterruptedException {
        int n = parties.size();
        if (n > workers.size()) {
            throw new IllegalArgumentException(n + " parties for a crew of " + workers.size());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        long r = ++round;
        ready.set(0);
        CountDownLatch done = new CountDownLatch(n);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < n; i++) {
            Party party = parties.get(i);
            Worker w = workers.get(i);
            // Half the rounds start everyone at once; the others spread the parties over a few microseconds.
            int pauses = jitter.nextBoolean() ? 0 : jitter.nextInt(MAX_JITTER);
            w.inbox.add(() -> {
                try {
                    if (ready.incrementAndGet() == n) {
                        // The last party to get ready starts the round: no wake-up of the main thread in between.
                        started = r;
                    } else {
                        awaitStart(r, deadline);
                    }
                    for (int p = 0; p < pauses; p++) {
                        Thread.onSpinWait();
                    }
                    party.run(w.name);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            });
        }
        if (!done.await(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            throw new AssertionError("lockstep race did not finish within " + TIMEOUT_SECONDS + " s");
        }
        if (failure.get() != null) {
            throw new AssertionError("a lockstep party failed", failure.get());
        }
    }

    private void awaitStart(long r, long deadline) {
        for (int spins = 0; started != r; spins++) {
            if (spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("lockstep round never started");
                }
                Thread.yield();
            }
        }
    }

    @Override
    public void close() {
        for (Worker w : workers) {
            w.thread.interrupt();
        }
        try {
            for (Worker w : workers) {
                // Idle workers end at once; one stuck in a store call after a timed-out round is left behind (daemon).
                w.thread.join(1_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class Worker {
        final String name;
        final BlockingQueue<Runnable> inbox = new ArrayBlockingQueue<>(1);
        final Thread thread;

        Worker(String name) {
            this.name = name;
            this.thread = new Thread(this::loop, name);
            thread.setDaemon(true);
        }

        private void loop() {
            try {
                while (true) {
                    inbox.take().run();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
