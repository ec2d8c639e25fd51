package dev.idem.engine;

import static dev.idem.engine.Explorer.check;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.time.Scheduler;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Cancelling an asynchronous call that waits for a key another call holds, in every interleaving
 * with its next poll falling due: once both are over, the call's slot among the engine's
 * {@code maxAsyncCalls} is back and no poll of it is left scheduled, wherever the cancel came (before
 * the poll, while it claimed, while it scheduled the next one). The engine runs whole here: its
 * executors run tasks on the thread that hands them in, its timer is the scenario's.
 */
class CancelledWaiterExploreTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("explore", "cancel", "k");

    /** A timer the scenario drives: tasks run when a party runs them, never on time. */
    static final class Timer implements Scheduler {
        private final List<Runnable> due = new ArrayList<>();

        @Override
        public synchronized Cancellable schedule(Duration delay, Runnable task) {
            due.add(task);
            return () -> {
                synchronized (this) {
                    due.remove(task);
                }
            };
        }

        void fire() {
            Runnable task;
            synchronized (this) {
                task = due.isEmpty() ? null : due.remove(0);
            }
            if (task != null) {
                task.run();
            }
        }

        synchronized int scheduled() {
            return due.size();
        }

        synchronized void clear() {
            due.clear();
        }
    }

    /** A call that waits for a held key: the engine's, and the planted one. */
    interface Waiter {
        /** Starts the call; it finds the key in progress and schedules its next poll on the timer. */
        CompletableFuture<?> start();

        /** Slots of {@code maxAsyncCalls} taken now. */
        int slotsTaken();
    }

    /** An engine in which another call holds {@link #KEY}; the timer is cleared of that call's heartbeat. */
    static Waiter engine(Timer timer) {
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(MemoryIdempotencyStore.create())
                .asyncExecutor(Runnable::run)
                .leaseRenewalExecutor(Runnable::run)
                .scheduler(timer)
                .maxAsyncCalls(2)
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofHours(1)))
                .build();
        engine.executeAsync(KEY, "{\"order\":42}", ctx -> new CompletableFuture<>());
        timer.clear();
        return new Waiter() {
            @Override
            public CompletableFuture<?> start() {
                return engine.executeAsync(KEY, "{\"order\":42}", ctx -> CompletableFuture.completedFuture("done"));
            }

            @Override
            public int slotsTaken() {
                return engine.parts.async().inFlight();
            }
        };
    }

    static Runnable cancelWhileThePollFallsDue(Function<Timer, Waiter> made) {
        return () -> {
            Timer timer = new Timer();
            Waiter waiter = made.apply(timer);
            int before = waiter.slotsTaken();
            CompletableFuture<?> answer = waiter.start();
            check(timer.scheduled() == 1, "the waiter did not wait for a poll: " + answer);
            Explorer.parties(() -> answer.cancel(false), timer::fire);
            check(answer.isCancelled(), "the answer was not cancelled: " + answer);
            check(waiter.slotsTaken() == before, "a cancelled waiter keeps its slot ("
                    + waiter.slotsTaken() + " taken, " + before + " before it started)");
            check(timer.scheduled() == 0, "a cancelled waiter still has a poll scheduled");
        };
    }

    @Test
    void aCancelledWaiterReturnsItsSlotAtOnce() {
        // Each schedule builds an engine (about a quarter of a second under the model checker): the
        // scenario's two parties have few switch points between them, which this many schedules cover.
        Explorer.explore(Explorer.INVOCATIONS / 8, cancelWhileThePollFallsDue(CancelledWaiterExploreTest::engine));
    }

    /** Planted: a waiter that does not look at its answer again once it scheduled its next poll. */
    @Test
    void findsACancelledWaiterThatKeepsItsSlot() {
        String schedule = Explorer.findsBug("a cancelled waiter that keeps its slot",
                cancelWhileThePollFallsDue(PlantedWaiter::new));
        assertTrue(schedule.contains("a cancelled waiter"), schedule);
    }

    /**
     * The engine's waiting protocol in small ({@code AsyncCall}: a poll that finds the key in
     * progress schedules the next; a cancel seen while no poll runs returns the slot; a poll that
     * finds the answer done returns it), with the plant: after a poll found the key in progress it
     * schedules the next without looking whether the caller cancelled meanwhile. A cancel that
     * came while that poll ran was left to it, so the slot stays taken until a poll that may never
     * come.
     */
    static final class PlantedWaiter implements Waiter {
        private final Timer timer;
        private final AtomicInteger slots = new AtomicInteger();
        private final AtomicBoolean returned = new AtomicBoolean();
        private final CompletableFuture<Object> answer = new CompletableFuture<>();
        private volatile boolean active = true;
        private volatile Scheduler.Cancellable next;
        private boolean watched;

        PlantedWaiter(Timer timer) {
            this.timer = timer;
        }

        @Override
        public CompletableFuture<?> start() {
            slots.incrementAndGet();
            poll();
            return answer;
        }

        @Override
        public int slotsTaken() {
            return slots.get();
        }

        private void poll() {
            if (answer.isDone()) {
                stop();
                return;
            }
            // The claim finds the key still in progress: wait for the next poll.
            active = false;
            if (!watched) {
                watched = true;
                answer.whenComplete((r, e) -> {
                    if (!active) {
                        stop();
                    }
                });
            }
            next = timer.schedule(Duration.ofMillis(10), this::due);
        }

        private void due() {
            active = true;
            poll();
        }

        private void stop() {
            active = false;
            Scheduler.Cancellable n = next;
            if (n != null) {
                n.cancel();
            }
            if (returned.compareAndSet(false, true)) {
                slots.decrementAndGet();
            }
        }
    }
}
