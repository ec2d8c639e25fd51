package dev.idem.engine;

import static dev.idem.engine.Explorer.check;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The laned port over a blocking store (the form asynchronous calls use), in every interleaving of
 * a claim and a held key's completion sharing a one-slot lane, with the renewal executor refusing:
 * the completion is not lost (it runs on the claims' executor), each call is answered exactly once,
 * and the slot is free at the end whichever call got it first.
 */
class LanedPortExploreTest {
    private static final IdempotencyKey HELD = IdempotencyKey.of("explore", "port", "held");
    private static final IdempotencyKey OTHER = IdempotencyKey.of("explore", "port", "other");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);

    /** Runs each task on a new thread, kept so the scenario can wait for all of them. */
    static final class ThreadPerTask implements Executor {
        private final List<Thread> threads = new ArrayList<>();

        @Override
        public void execute(Runnable task) {
            Thread t = new Thread(task);
            synchronized (this) {
                threads.add(t);
            }
            t.start();
        }

        /** Waits for every thread started, also those started meanwhile. */
        void joinAll() {
            for (int joined = 0;; joined++) {
                Thread next;
                synchronized (this) {
                    if (joined == threads.size()) {
                        return;
                    }
                    next = threads.get(joined);
                }
                Explorer.joinAll(List.of(next));
            }
        }
    }

    @Test
    void aHeldKeysCallIsAnsweredOnceWhenItsExecutorRefuses() {
        Runnable scenario = completionBesideAClaim();
        // Once outside the model checker first: the refusal's warning initializes the JDK's logging
        // and time zones, which the checker's instrumentation cannot run through.
        scenario.run();
        // Every schedule logs the refusal, which is slow under the checker: a quarter as many.
        Explorer.explore(Explorer.INVOCATIONS / 4, scenario);
    }

    static Runnable completionBesideAClaim() {
        return () -> {
            MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
            ClaimResult held = store.claim(HELD, new byte[] {1}, 7, LEASE, TTL);
            check(held.claimed(), "the key was not claimed: " + held);
            StoreLane lane = new StoreLane(1, 0);
            ThreadPerTask claims = new ThreadPerTask();
            Executor refusing = task -> {
                throw new RejectedExecutionException("the renewal executor is shut down");
            };
            LanedPort port = new LanedPort(store, lane, () -> claims, () -> refusing, d -> { });
            AtomicInteger claimAnswers = new AtomicInteger();
            ClaimResult[] claimed = new ClaimResult[1];
            CompletableFuture<?>[] completed = new CompletableFuture<?>[1];
            Explorer.parties(
                    () -> port.claim(OTHER, new byte[] {2}, 8, LEASE, TTL, (result, failure) -> {
                        claimAnswers.incrementAndGet();
                        claimed[0] = result;
                    }),
                    () -> completed[0] = port.complete(HELD, 7, new byte[] {3}, TTL));
            claims.joinAll();
            check(claimAnswers.get() == 1, "the claim was answered " + claimAnswers.get() + " times");
            check(claimed[0] != null && claimed[0].claimed(), "the claim did not win its free key: " + claimed[0]);
            check(completed[0].isDone() && Boolean.TRUE.equals(completed[0].getNow(null)),
                    "the held key's completion was lost or refused: " + completed[0]);
            check(lane.running() == 0, "the lane still counts " + lane.running() + " calls under way");
        };
    }
}
