package dev.idem.engine;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The default asynchronous runtime's bounds over a blocking store: how wide its lane is for each
 * kind of executor, and that, however wide, the store never has more than
 * {@link AsyncRuntime#POOL_THREADS} of an engine's asynchronous calls at once with the executor
 * this JDK gives by default (platform threads on 17, virtual threads on 21+).
 */
class AsyncRuntimeTest {

    @Test
    void theLaneIsTwiceThePoolOverTheEnginesOwnPlatformThreadsElseAsWideAsThePool() {
        assertThat(AsyncRuntime.laneWidth(null, false)).isEqualTo(2 * AsyncRuntime.POOL_THREADS);
        assertThat(AsyncRuntime.laneWidth(null, true)).isEqualTo(AsyncRuntime.POOL_THREADS);
        assertThat(AsyncRuntime.laneWidth(Runnable::run, false)).isEqualTo(AsyncRuntime.POOL_THREADS);
        assertThat(AsyncRuntime.laneWidth(Runnable::run, true)).isEqualTo(AsyncRuntime.POOL_THREADS);
    }

    @Test
    void theStoreHasAtMostThePoolsThreadsOfAsyncCallsAtOnceAndEveryCallIsAnswered() throws Exception {
        int pool = AsyncRuntime.POOL_THREADS;
        int calls = 3 * pool; // more than the lane is wide over either kind of executor
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch full = new CountDownLatch(pool);
        CountDownLatch oneTooMany = new CountDownLatch(pool + 1);
        CountDownLatch gate = new CountDownLatch(1);
        ForwardingIdempotencyStore gated = new ForwardingIdempotencyStore(MemoryIdempotencyStore.builder().build()) {
            @Override
            protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
                if (operation != Operation.CLAIM) {
                    return call.get();
                }
                most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                full.countDown();
                oneTooMany.countDown();
                try {
                    if (!gate.await(30, SECONDS)) {
                        throw new IllegalStateException("the test never opened the gate");
                    }
                    return call.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                } finally {
                    inside.decrementAndGet();
                }
            }
        };
        List<CompletableFuture<Result<String>>> answers = new ArrayList<>();
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(gated).build()) {
            for (int i = 0; i < calls; i++) {
                String n = "k" + i;
                answers.add(engine.executeAsync(IdempotencyKey.of("tenant-1", "create-charge", n), Map.of("n", n),
                        String.class, ctx -> CompletableFuture.completedFuture("done " + n)));
            }
            try {
                assertThat(full.await(30, SECONDS)).as("the first %s claims reach the store", pool).isTrue();
                // A bounded look for a claim too many: one that is let through arrives at once on
                // an idle machine; on a loaded one this may miss it, never report one wrongly.
                assertThat(oneTooMany.await(300, MILLISECONDS))
                        .as("a claim beyond the pool's %s entered the store while they were held", pool).isFalse();
            } finally {
                gate.countDown();
            }
            for (int i = 0; i < calls; i++) {
                assertThat(answers.get(i).get(30, SECONDS).value()).isEqualTo("done k" + i);
            }
        }
        assertThat(most.get()).as("store calls at once").isEqualTo(pool);
    }
}
