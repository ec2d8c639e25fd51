package dev.idem.engine;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A pool of up to {@code threads} daemon platform threads whose {@link #execute} takes no lock:
 * the engine's default executor on a JDK without virtual threads. Tasks are handed in from
 * threads that must never block, a store client's I/O thread or a reactive framework's event loop
 * (a non-blocking store's answers, a work stage that completed there); a {@code ThreadPoolExecutor}
 * takes its queue's lock there, and parks under contention. Here a task goes into a lock-free queue
 * and an idle thread, if any, is unparked; threads idle for {@code keepAlive} end.
 *
 * <p>No task is stranded: a thread goes idle only after it found the queue empty once it was
 * listed as idle, and one that ends looks at the queue once it is no longer counted, so a task
 * handed in meanwhile either finds it listed (and wakes it), or finds room to start a thread, or is
 * seen by it (and it stays).
 */
final class EngineThreads implements Executor {
    private final String prefix;
    private final int max;
    private final long keepAliveNanos;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedDeque<Thread> idle = new ConcurrentLinkedDeque<>();
    private final AtomicInteger threads = new AtomicInteger();
    private final AtomicInteger named = new AtomicInteger();
    private volatile boolean shutdown;

    EngineThreads(String prefix, int max, long keepAlive, TimeUnit unit) {
        this.prefix = prefix;
        this.max = max;
        this.keepAliveNanos = unit.toNanos(keepAlive);
    }

    @Override
    public void execute(Runnable task) {
        if (shutdown) {
            throw new RejectedExecutionException(prefix + "threads are shut down");
        }
        tasks.add(task);
        Thread waiting = idle.pollFirst();
        if (waiting != null) {
            LockSupport.unpark(waiting);
            return;
        }
        if (room()) {
            start();
        }
        // Else every thread is busy: each takes the next task when it is done with its own.
    }

    /** Counts one more thread if there is room for it. */
    private boolean room() {
        for (int n = threads.get(); n < max; n = threads.get()) {
            if (threads.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    private void start() {
        Thread t = new Thread(this::work, prefix + named.incrementAndGet());
        t.setDaemon(true);
        t.start();
    }

    private void work() {
        Thread self = Thread.currentThread();
        for (;;) {
            Runnable task = tasks.poll();
            if (task != null) {
                run(task);
                continue;
            }
            idle.addFirst(self);
            if (!tasks.isEmpty() || shutdown) {
                // A task came in before this thread was listed (or the pool shuts down): look again.
                idle.remove(self);
                if (shutdown && tasks.isEmpty()) {
                    threads.decrementAndGet();
                    return;
                }
                continue;
            }
            long parkedAt = System.nanoTime();
            LockSupport.parkNanos(this, keepAliveNanos);
            if (System.nanoTime() - parkedAt < keepAliveNanos && !shutdown) {
                // Woken for a task (whoever woke it took it off the idle list), or spuriously.
                idle.remove(self);
                continue;
            }
            if (!idle.remove(self)) {
                // A task's hand-in took this thread off the idle list to wake it: it stays for that task.
                continue;
            }
            threads.decrementAndGet();
            // A task that came in after this thread stopped counting: it stays if there is room; if
            // there is none, a thread counted since takes it.
            if (tasks.isEmpty() || !room()) {
                return;
            }
        }
    }

    private static void run(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            Thread t = Thread.currentThread();
            t.getUncaughtExceptionHandler().uncaughtException(t, e);
        }
    }

    /** Accepts no more tasks; idle threads end, busy ones once the queue is empty. */
    void shutdown() {
        shutdown = true;
        for (Thread t : idle) {
            LockSupport.unpark(t);
        }
    }

    /** Threads alive now, for tests. */
    int threads() {
        return threads.get();
    }

    @Override
    public String toString() {
        return "EngineThreads[" + prefix + ", " + threads.get() + " of " + max + " threads, " + tasks.size()
                + " tasks queued]";
    }
}
