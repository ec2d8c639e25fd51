package dev.idem.engine;

import dev.idem.api.time.Scheduler;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where an engine's asynchronous calls run their claims over a blocking store (the executor,
 * entered through a {@link LanedPort}), run the calls of keys they hold (renewals, outcomes: the
 * renewal executor) and wait (the scheduler): the builder's, or defaults the engine creates on the
 * first asynchronous call and shuts down on {@link IdempotencyEngine#close()}. The default executor is a virtual
 * thread per task on a JDK that has them (21+; looked up reflectively, the engine targets Java
 * 17), else a pool of {@link #POOL_THREADS} daemon platform threads that takes tasks in without a
 * lock ({@link EngineThreads}); the default renewal executor is the same kind but its own (a pool of
 * {@link #RENEWAL_THREADS}), so a renewal never waits in the queue of other callers' claims; the
 * default scheduler is one daemon timer thread that only hands tasks over, and heartbeats get one
 * of their own. All let idle threads end, so an engine that makes no asynchronous call holds none.
 */
final class AsyncRuntime {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());
    /** Threads of the default pool on a JDK without virtual threads. */
    static final int POOL_THREADS = Math.max(8, 4 * Runtime.getRuntime().availableProcessors());
    /**
     * Threads of the default renewal pool on a JDK without virtual threads: renewals are blocking
     * store calls that must keep up with every pending work's beat (one per third of a lease) even
     * when each takes tens of milliseconds; idle ones end.
     */
    static final int RENEWAL_THREADS = 4 * POOL_THREADS;
    /** Whether this JDK runs a virtual thread per task (the default executor's first choice). */
    static final boolean VIRTUAL_THREADS = virtualThreadsAvailable();

    private final Executor givenExecutor;
    private final Executor givenRenewals;
    private final Scheduler givenScheduler;
    final Duration maxPending;
    final int maxCalls;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile Executor executor;
    private volatile Scheduler scheduler;
    private volatile Executor renewals;
    private Executor ownedExecutor;
    private Executor ownedRenewals;
    private ScheduledThreadPoolExecutor ownedTimer;
    private volatile Scheduler renewalTimer;
    private ScheduledThreadPoolExecutor ownedRenewalTimer;
    private boolean closed;

    AsyncRuntime(Executor executor, Executor renewals, Scheduler scheduler, Duration maxPending, int maxCalls) {
        this.maxCalls = maxCalls;
        this.givenExecutor = executor;
        this.givenRenewals = renewals;
        this.givenScheduler = scheduler;
        this.maxPending = maxPending;
        this.executor = executor;
        this.renewals = renewals;
        this.scheduler = scheduler;
        if (scheduler == null) {
            // Made here, on the builder's thread, though no thread starts before a task is scheduled:
            // setting a timer up takes its pool's lock, which the first asynchronous call, maybe on an
            // event loop, must not.
            this.ownedTimer = timer("idem-async-timer-");
            this.scheduler = Scheduler.of(ownedTimer);
            this.ownedRenewalTimer = timer("idem-lease-timer-");
            this.renewalTimer = Scheduler.of(ownedRenewalTimer);
        }
    }

    /**
     * The lane of a blocking store with {@code executor} (the builder's, or null): {@link #laneWidth}
     * claims at once, and a quarter as many slots more kept for the calls of held keys.
     */
    static StoreLane blockingLane(Executor executor) {
        int claims = laneWidth(executor, VIRTUAL_THREADS);
        int kept = Math.max(1, claims / 4);
        return new StoreLane(claims + kept, kept);
    }

    /**
     * How many blocking store calls the lane hands to the executor at once. Over the engine's own
     * pool of platform threads, twice its threads: the pool's threads still bound the calls in the
     * store, and as many calls again wait in the pool's queue, so a thread that ends a call takes
     * the next one at once. A lane only as wide as the pool kept that queue empty: every call was
     * handed to a parked thread and waited for it to wake (measured: async calls over a blocking
     * Redis 1.13x slower than with no lane; benchmarks/results/HISTORY.md). Over virtual threads, or
     * the builder's executor (whose threads the engine does not know), the lane alone bounds the
     * store's calls, so it is {@link #POOL_THREADS} wide.
     */
    static int laneWidth(Executor given, boolean virtualThreads) {
        return given == null && !virtualThreads ? 2 * POOL_THREADS : POOL_THREADS;
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
                    ownedExecutor = defaultExecutor("idem-async-", POOL_THREADS);
                    executor = ownedExecutor;
                }
                e = executor;
            }
        }
        return e;
    }

    /**
     * Where lease renewals of pending work run: the builder's renewal executor, else the engine's
     * own (created on first use), never the async executor, whose queue holds other callers' claims.
     */
    Executor renewals() {
        Executor r = renewals;
        if (r == null) {
            synchronized (this) {
                checkOpen();
                if (renewals == null) {
                    ownedRenewals = defaultExecutor("idem-lease-", RENEWAL_THREADS);
                    renewals = ownedRenewals;
                }
                r = renewals;
            }
        }
        return r;
    }

    /** The timer of waiting callers' polls: the builder's scheduler, else the one made with this runtime. */
    Scheduler scheduler() {
        return open(scheduler);
    }

    /**
     * Completes after {@code d}, on the executor (the scheduler's thread only hands over), holding
     * no thread meanwhile; exceptionally if the scheduler or the executor refuses.
     */
    CompletableFuture<Void> pause(Duration d) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            Scheduler.Cancellable ignored = scheduler().schedule(d, () -> {
                try {
                    executor().execute(() -> done.complete(null));
                } catch (RuntimeException e) {
                    done.completeExceptionally(e);
                }
            });
        } catch (RuntimeException e) {
            done.completeExceptionally(e);
        }
        return done;
    }

    /**
     * The timer of heartbeats: the builder's scheduler, else one of the engine's own, apart from
     * the timer of waiting callers' polls, so a beat never falls due behind thousands of them.
     */
    Scheduler renewalTimer() {
        return givenScheduler != null ? givenScheduler : open(renewalTimer);
    }

    /**
     * A timer made with this runtime (both are made in the constructor, on the builder's thread):
     * null only once {@link #close()} dropped it.
     */
    private static Scheduler open(Scheduler timer) {
        if (timer == null) {
            throw new IllegalStateException("the engine is closed");
        }
        return timer;
    }

    private static ScheduledThreadPoolExecutor timer(String prefix) {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemons(prefix));
        timer.setRemoveOnCancelPolicy(true);
        timer.setKeepAliveTime(10, TimeUnit.SECONDS);
        timer.allowCoreThreadTimeOut(true);
        return timer;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the engine is closed");
        }
    }

    /** Shuts down what this runtime created; the builder's executor and scheduler stay the caller's. */
    synchronized void close() {
        closed = true;
        shutDown(ownedExecutor);
        shutDown(ownedRenewals);
        if (ownedTimer != null) {
            ownedTimer.shutdownNow();
        }
        if (ownedRenewalTimer != null) {
            ownedRenewalTimer.shutdownNow();
        }
        renewalTimer = null;
        if (givenExecutor == null) {
            executor = null;
        }
        if (givenScheduler == null) {
            scheduler = null;
        }
        if (givenRenewals == null) {
            renewals = null;
        }
    }

    private static void shutDown(Executor owned) {
        if (owned instanceof ExecutorService) {
            ((ExecutorService) owned).shutdown();
        } else if (owned instanceof EngineThreads) {
            ((EngineThreads) owned).shutdown();
        }
    }

    /**
     * A virtual thread per task, else the engine's own pool of platform threads, which hands a task
     * in without taking a lock (see {@link EngineThreads}: tasks are handed in from store clients'
     * I/O threads and from event loops, which must never block).
     */
    private static Executor defaultExecutor(String prefix, int threads) {
        // Looked up once (VIRTUAL_THREADS), not again per executor: the lane's width depends on the same answer.
        ExecutorService virtual = VIRTUAL_THREADS ? virtualThreads(prefix) : null;
        if (virtual != null) {
            return virtual;
        }
        return new EngineThreads(prefix + "store-", threads, 30, TimeUnit.SECONDS);
    }

    private static boolean virtualThreadsAvailable() {
        ExecutorService probe = virtualThreads("idem-probe-");
        if (probe == null) {
            return false;
        }
        probe.shutdown();
        return true;
    }

    /** A virtual thread per task, on Java 21+; null on an older JDK (or one where they are a preview). */
    static ExecutorService virtualThreads(String prefix) {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> type = Class.forName("java.lang.Thread$Builder");
            builder = type.getMethod("name", String.class, long.class).invoke(builder, prefix, 0L);
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
