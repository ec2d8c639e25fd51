package dev.idem.store.tck;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A crew of threads for races that meet: in each round every party works on the same key and
 * the round starts at a moment when parties are seen running together, so their calls overlap
 * inside the store instead of merely running in the same millisecond.
 *
 * <p>The threads are made once per crew and reused for every round, so a round costs
 * microseconds and a test can afford many. A party that has its work does not wait on a lock:
 * it spins, stamping the time into its slot on every turn. The round starts once every party is
 * ready and two of them (of different sides, where the race has sides) stamped within the last
 * few microseconds, that is, are on a CPU at that moment; those see the start within nanoseconds
 * and call the store together. On a loaded machine the scheduler often runs one thread while the others wait for a
 * CPU; starting as soon as the last party is ready would then let it finish its call before any
 * other party runs, a round in which nothing raced. Waiting for a moment when two run together
 * makes each round a race even there (bounded: if no such moment comes, as on a single CPU, the
 * round starts anyway). Before its call each party spins for a seeded random number of pauses, a
 * few microseconds at most, so that from round to round the parties meet at every offset (who
 * reads first, who writes in between) rather than always in the order the scheduler happens to
 * prefer. Nothing here knows the store: the overlaps are real ones, and {@link Meetings} counts
 * the rounds in which they happened. Every wait is bounded.
 */
final class Lockstep implements AutoCloseable {
    private static final long TIMEOUT_SECONDS = 60;
    /** Pauses of jitter at most; a pause is tens of nanoseconds, so this spans a few microseconds. */
    private static final int MAX_JITTER = 64;
    /** How recent a party's stamp must be to count as running now: many turns of its spin loop. */
    private static final long RUNNING_NANOS = TimeUnit.MICROSECONDS.toNanos(5);
    /** Pure spinning before a party waiting for the others to get ready also yields its CPU. */
    private static final int SPINS_BEFORE_YIELD = 2_000;
    /** How long the ready parties wait for two of them to run together before the round starts anyway. */
    private static final long TOGETHER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    /** One party's part of the race; gets its thread's name for the history. */
    @FunctionalInterface
    interface Party {
        void run(String thread) throws Exception;
    }

    private final List<Worker> workers = new ArrayList<>();
    private final Random jitter;
    private final AtomicInteger ready = new AtomicInteger();
    private final AtomicLong started = new AtomicLong();
    private final AtomicLongArray stamps;
    private long round;

    /**
     * A crew of {@code size} threads, its jitter drawn from {@code seed}.
     *
     * @param size the most parties of one round
     * @param seed the seed of the jitter
     */
    Lockstep(int size, long seed) {
        this.jitter = new Random(seed);
        this.stamps = new AtomicLongArray(size);
        for (int i = 0; i < size; i++) {
            Worker w = new Worker("tck-lockstep-" + i);
            workers.add(w);
            w.thread.start();
        }
    }

    /**
     * Runs one round: party {@code i} on thread {@code i}, started together, and waits for all.
     * Every party is a side of its own: any two running together start the round.
     *
     * @throws AssertionError if a party threw or the round did not finish in time
     */
    void round(List<Party> parties) throws InterruptedException {
        int[] sides = new int[parties.size()];
        for (int i = 0; i < sides.length; i++) {
            sides[i] = i;
        }
        round(parties, sides);
    }

    /**
     * Runs one round: party {@code i} on thread {@code i}, started when two parties of different
     * sides run together (parties of one side, such as a stale holder's moves, race the other
     * side, not each other), and waits for all.
     *
     * @param sides the side of each party
     * @throws AssertionError if a party threw or the round did not finish in time
     */
    void round(List<Party> parties, int[] sides) throws InterruptedException {
        int n = parties.size();
        if (n > workers.size()) {
            throw new IllegalArgumentException(n + " parties for a crew of " + workers.size());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        long r = ++round;
        ready.set(0);
        for (int i = 0; i < n; i++) {
            // No party of this round has run yet: a stamp left from the last round must not count.
            stamps.set(i, Long.MIN_VALUE);
        }
        CountDownLatch done = new CountDownLatch(n);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < n; i++) {
            Party party = parties.get(i);
            Worker w = workers.get(i);
            int slot = i;
            // Half the rounds start everyone at once; the others spread the parties over a few microseconds.
            int pauses = jitter.nextBoolean() ? 0 : jitter.nextInt(MAX_JITTER);
            w.inbox.add(() -> {
                try {
                    ready.incrementAndGet();
                    awaitStart(slot, n, sides, r, deadline);
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

    /**
     * Waits until round {@code r} started (possibly by this party): while a party has yet to get
     * ready it spins a while, then yields its CPU (to that party, if it waits for this CPU); once
     * all are ready it spins, stamping slot {@code slot}, until two run together or
     * {@link #TOGETHER_NANOS} passed.
     */
    private void awaitStart(int slot, int n, int[] sides, long r, long deadline) {
        long allReadySince = 0;
        for (int spins = 0; started.get() != r; spins++) {
            long now = System.nanoTime();
            stamps.set(slot, now);
            if (ready.get() == n) {
                if (allReadySince == 0) {
                    allReadySince = now;
                }
                if (runningTogether(n, sides, now) || now - allReadySince > TOGETHER_NANOS) {
                    started.compareAndSet(r - 1, r);
                    return;
                }
                Thread.onSpinWait();
            } else if (spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
            if (now - deadline > 0) {
                throw new AssertionError("lockstep round never started");
            }
        }
    }

    /**
     * Whether parties of two sides stamped within {@link #RUNNING_NANOS} of {@code now} (or, if all
     * parties are of one side, whether one did).
     */
    private boolean runningTogether(int n, int[] sides, long now) {
        int side = -1;
        for (int i = 0; i < n; i++) {
            long stamp = stamps.get(i);
            if (stamp == Long.MIN_VALUE || now - stamp >= RUNNING_NANOS) {
                continue;
            }
            if (side == -1) {
                side = sides[i];
            } else if (sides[i] != side) {
                return true;
            }
        }
        return side != -1 && Arrays.stream(sides, 0, n).allMatch(s -> s == sides[0]);
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
