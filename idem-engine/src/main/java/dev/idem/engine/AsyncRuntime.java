package dev.idem.engine;

import dev.idem.api.time.Scheduler;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where an engine's asynchronous calls run their blocking store calls (the executor) and wait
 * (the scheduler): the builder's, or defaults the engine creates on the first asynchronous call
 * and shuts down on {@link IdempotencyEngine#close()}. The default executor is a virtual thread
 * per task on a JDK that has them (21+; looked up reflectively, the engine targets Java 17),
 * else a bounded pool of {@link #POOL_THREADS} daemon platform threads with an unbounded queue;
 * the default scheduler is one daemon timer thread that only hands tasks over. Both let idle
 * threads end, so an engine that makes no asynchronous call holds none.
 */
final class AsyncRuntime {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());
    /** Threads of the default pool on a JDK without virtual threads. */
    static final int POOL_THREADS = Math.max(8, 4 * Runtime.getRuntime().availableProcessors());

    private final Executor givenExecutor;
    private final Scheduler givenScheduler;
    final Duration maxPending;
    final int maxCalls;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile Executor executor;
    private volatile Scheduler scheduler;
    private ExecutorService ownedExecutor;
    private ScheduledThreadPoolExecutor ownedTimer;
    private boolean closed;

    AsyncRuntime(Executor executor, Scheduler scheduler, Duration maxPending, int maxCalls) {
        this.maxCalls = maxCalls;
        this.givenExecutor = executor;
        this.givenScheduler = scheduler;
        this.maxPending = maxPending;
        this.executor = executor;
        this.scheduler = scheduler;
    }

    /** Takes one of the {@code maxCalls} slots; false if all are taken. */
    boolean acquire() {
        while (true) {
            int n = inFlight.get();
            if (n >= maxCalls) {
                return false;
            }
            if (inFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    void release() {
        inFlight.decrementAndGet();
    }

    /** Asynchronous calls in flight now. */
    int inFlight() {
        return inFlight.get();
    }

    Executor executor() {
        Executor e = executor;
        if (e == null) {
            synchronized (this) {
                checkOpen();
                if (executor == null) {
                    ownedExecutor = defaultExecutor();
                    executor = ownedExecutor;
                }
                e = executor;
            }
        }
        return e;
    }

    Scheduler scheduler() {
        Scheduler s = scheduler;
        if (s == null) {
            synchronized (this) {
                checkOpen();
                if (scheduler == null) {
                    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemons("idem-async-timer-"));
                    timer.setRemoveOnCancelPolicy(true);
                    timer.setKeepAliveTime(10, TimeUnit.SECONDS);
                    timer.allowCoreThreadTimeOut(true);
                    ownedTimer = timer;
                    scheduler = Scheduler.of(timer);
                }
                s = scheduler;
            }
        }
        return s;
    }

    /** Whether the executor is one the engine created (and so may describe). */
    synchronized String describe() {
        if (givenExecutor != null) {
            return "the builder's executor " + givenExecutor;
        }
        return ownedExecutor == null ? "not created yet" : ownedExecutor.toString();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the engine is closed");
        }
    }

    /** Shuts down what this runtime created; the builder's executor and scheduler stay the caller's. */
    synchronized void close() {
        closed = true;
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
        if (ownedTimer != null) {
            ownedTimer.shutdownNow();
        }
        if (givenExecutor == null) {
            executor = null;
        }
        if (givenScheduler == null) {
            scheduler = null;
        }
    }

    private static ExecutorService defaultExecutor() {
        ExecutorService virtual = virtualThreads();
        if (virtual != null) {
            return virtual;
        }
        ThreadPoolExecutor pool = new ThreadPoolExecutor(POOL_THREADS, POOL_THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), daemons("idem-async-store-"));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** A virtual thread per task, on Java 21+; null on an older JDK (or one where they are a preview). */
    static ExecutorService virtualThreads() {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> type = Class.forName("java.lang.Thread$Builder");
            builder = type.getMethod("name", String.class, long.class).invoke(builder, "idem-async-", 0L);
            ThreadFactory factory = (ThreadFactory) type.getMethod("factory").invoke(builder);
            Method perTask = java.util.concurrent.Executors.class.getMethod("newThreadPerTaskExecutor",
                    ThreadFactory.class);
            return (ExecutorService) perTask.invoke(null, factory);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.log(Level.DEBUG, "no virtual threads on this JDK ({0}); async store calls use a pool of {1}",
                    e, POOL_THREADS);
            return null;
        }
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return task -> {
            Thread t = new Thread(task, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
