package dev.idem.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.RecordState;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEvent;
import dev.idem.engine.InProgressPolicy;
import dev.idem.engine.Result;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The Reactor API on a real engine (memory store, the engine's default async executor and
 * timer): laziness, one subscription of the work per claim, the subscriber's context in the
 * work, unwrapped errors, many concurrent subscribers, cancellation mid-work, and Flux results.
 * Every wait is bounded; ordering comes from sinks and latches the test completes itself.
 */
class ReactorIdempotencyTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
    private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(store).listener(events::add)
            .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(30))).build();
    private final ReactorIdempotency idem = ReactorIdempotency.of(engine);
    private final AtomicInteger subscriptions = new AtomicInteger();

    @AfterEach
    void close() {
        engine.close();
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant-1", "create-charge", k);
    }

    private Mono<String> counted(String value) {
        return Mono.fromCallable(() -> value).doOnSubscribe(s -> subscriptions.incrementAndGet());
    }

    @Test
    void nothingHappensUntilSubscribedAndEachSubscriptionIsOneEngineCall() {
        Mono<Result<String>> mono = idem.execute(key("lazy"), "{}", String.class, ctx -> counted("ch_" + ctx.attempt()));

        assertThat(store.find(key("lazy"))).as("assembled, not subscribed").isEmpty();
        assertThat(subscriptions).hasValue(0);

        Result<String> first = mono.block(WAIT);
        Result<String> second = mono.block(WAIT);
        assertThat(first.replayed()).isFalse();
        assertThat(second.replayed()).isTrue();
        assertThat(second.value()).isEqualTo("ch_1");
        assertThat(subscriptions).as("the work's Mono subscribed once").hasValue(1);
    }

    @Test
    void theSubscribersContextReachesTheWork() {
        String seen = idem.call(key("ctx"), "{}", String.class,
                        ctx -> Mono.deferContextual(view -> Mono.just("tenant=" + view.get("tenant"))))
                .contextWrite(c -> c.put("tenant", "acme"))
                .block(WAIT);

        assertThat(seen).isEqualTo("tenant=acme");
    }

    @Test
    void errorsAreTheBlockingCallsExceptionsAndAnEmptyMonoReplaysEmpty() {
        assertThatThrownBy(() -> idem.call(key("e"), "{}", String.class,
                ctx -> Mono.error(new IllegalStateException("flaky"))).block(WAIT))
                .isExactlyInstanceOf(IllegalStateException.class).hasMessage("flaky");
        assertThat(store.find(key("e")).orElseThrow().state()).isEqualTo(RecordState.RELEASED);

        idem.call(key("r"), "{\"amount\":1}", String.class, ctx -> counted("x")).block(WAIT);
        assertThatThrownBy(() -> idem.call(key("r"), "{\"amount\":2}", String.class, ctx -> counted("y")).block(WAIT))
                .isExactlyInstanceOf(KeyReusedException.class);

        assertThat(idem.call(key("empty"), "{}", String.class, ctx -> Mono.<String>empty()).blockOptional(WAIT))
                .isEmpty();
        assertThat(idem.execute(key("empty"), "{}", String.class, ctx -> counted("late")).block(WAIT).replayed())
                .isTrue();
        assertThatThrownBy(() -> idem.call(key("null"), "{}", String.class, ctx -> null).block(WAIT))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("instead of a Mono");
        assertThatThrownBy(() -> idem.call(null, "{}", String.class, ctx -> counted("x")))
                .as("refused when the Mono is built").isInstanceOf(NullPointerException.class);
    }

    @Test
    void manyConcurrentSubscribersGetOneExecution() throws Exception {
        int n = 16;
        Sinks.One<String> gate = Sinks.one();
        AtomicInteger runs = new AtomicInteger();
        Mono<Result<String>> mono = idem.execute(key("many"), "{\"x\":1}", String.class, ctx -> {
            runs.incrementAndGet();
            return gate.asMono();
        });
        List<Result<String>> results = new CopyOnWriteArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(n);
        List<Disposable> subscribers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            subscribers.add(mono.subscribe(results::add, e -> {
                failures.add(e);
                done.countDown();
            }, done::countDown));
        }
        // Hold the work until every duplicate has met it in progress (they wait on the timer, no thread parked).
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (events.stream().filter(e -> e.type() == IdempotencyEvent.Type.IN_PROGRESS_CONFLICT).count() < n - 1) {
            assertThat(System.nanoTime() - deadline).as("duplicates reached the key").isNegative();
            Thread.onSpinWait();
        }
        gate.tryEmitValue("ch_many");

        assertThat(done.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(failures).isEmpty();
        assertThat(results).hasSize(n).allSatisfy(r -> assertThat(r.value()).isEqualTo("ch_many"));
        assertThat(results.stream().filter(r -> !r.replayed())).hasSize(1);
        assertThat(runs).hasValue(1);
        subscribers.forEach(Disposable::dispose);
    }

    @Test
    void cancellingMidWorkDetachesTheSubscriberButTheWorkEndsTheRecord() {
        Sinks.One<String> gate = Sinks.one();
        AtomicReference<Boolean> workCancelled = new AtomicReference<>(false);
        CountDownLatch started = new CountDownLatch(1);
        Disposable subscriber = idem.call(key("cancel"), "{}", String.class, ctx -> gate.asMono()
                        .doOnSubscribe(s -> started.countDown()).doOnCancel(() -> workCancelled.set(true)))
                .subscribe();
        assertThat(awaitQuietly(started)).isTrue();

        subscriber.dispose();
        assertThatThrownBy(() -> idem.execute(key("cancel"), "{}", String.class, CallOptions.builder()
                        .inProgress(InProgressPolicy.failFast()).build(), ctx -> counted("x")).block(WAIT))
                .as("the key is still held").isInstanceOf(RequestInProgressException.class);
        gate.tryEmitValue("ch_after_cancel");

        assertThat(idem.call(key("cancel"), "{}", String.class, ctx -> counted("never")).block(WAIT))
                .isEqualTo("ch_after_cancel");
        assertThat(workCancelled.get()).as("the work's Mono was not cancelled").isFalse();
        assertThat(subscriptions).hasValue(0);
    }

    @Test
    void aFluxIsCollectedStoredAndReplayedAsTheSameList() {
        AtomicInteger runs = new AtomicInteger();
        List<Integer> first = idem.callMany(key("flux"), "{}", Integer.class, ctx -> {
            runs.incrementAndGet();
            return Flux.range(1, 5);
        }).collectList().block(WAIT);
        Result<List<Integer>> replay = idem.executeMany(key("flux"), "{}", Integer.class, CallOptions.defaults(),
                ctx -> Flux.just(9)).block(WAIT);

        assertThat(first).containsExactly(1, 2, 3, 4, 5);
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).containsExactly(1, 2, 3, 4, 5);
        assertThat(runs).hasValue(1);
    }

    private static boolean awaitQuietly(CountDownLatch latch) {
        try {
            return latch.await(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
