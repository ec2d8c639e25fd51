package dev.idem.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.AsyncCallsFullException;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.InProgressPolicy;
import dev.idem.engine.OutcomeNotStoredException;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.ManualScheduler;
import dev.idem.testsupport.MutableClock;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * What a disposed subscriber costs (nothing more once it waits between polls: its polls stop and
 * its slot comes back, as the class Javadoc says) and a {@code Flux} past the outcome limit (not
 * kept whole). Deterministic: store calls run on the test's thread and waits on a
 * {@link ManualScheduler} over the store's simulated clock.
 */
class ReactorCancellationAndLimitsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private final ManualScheduler scheduler = new ManualScheduler(() -> clock.millis() * 1_000_000L);
    private final AtomicInteger claims = new AtomicInteger();
    private final IdempotencyStore counting = (IdempotencyStore) Proxy.newProxyInstance(
            IdempotencyStore.class.getClassLoader(), new Class<?>[] {IdempotencyStore.class}, (proxy, method, args) -> {
                if (method.getName().equals("claim")) {
                    claims.incrementAndGet();
                }
                try {
                    return method.invoke(memory, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });

    private IdempotencyEngineBuilder engine() {
        return IdempotencyEngine.builder().store(counting).ticker(() -> clock.millis() * 1_000_000L)
                .asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run).scheduler(scheduler)
                .lease(Duration.ofSeconds(30));
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant-1", "create-charge", k);
    }

    private void live(Duration total) {
        for (Duration passed = Duration.ZERO; passed.compareTo(total) < 0; passed = passed.plusMillis(250)) {
            clock.advance(Duration.ofMillis(250));
            scheduler.runDue();
        }
    }

    @Test
    void disposedWaitingSubscribersStopPollingAndReturnTheirSlots() {
        try (IdempotencyEngine engine = engine().inProgress(InProgressPolicy.waitUpTo(Duration.ofMinutes(1)))
                .maxAsyncCalls(21).build()) {
            ReactorIdempotency idem = ReactorIdempotency.of(engine);
            Sinks.One<String> held = Sinks.one();
            Disposable holder = idem.call(key("hot"), "{}", String.class, ctx -> held.asMono()).subscribe();
            List<Disposable> waiters = new ArrayList<>();
            AtomicInteger ran = new AtomicInteger();
            for (int i = 0; i < 20; i++) {
                waiters.add(idem.call(key("hot"), "{}", String.class, ctx -> {
                    ran.incrementAndGet();
                    return Mono.just("twice");
                }).subscribe());
            }
            live(Duration.ofSeconds(1));

            waiters.forEach(Disposable::dispose);
            int before = claims.get();
            live(Duration.ofMillis(1500));

            assertThat(claims.get() - before).as("claims by disposed waiters in the 1.5 s after").isZero();
            assertThat(scheduler.pending()).as("only the holder's heartbeat is scheduled").isEqualTo(1);
            AtomicReference<Throwable> refused = new AtomicReference<>();
            String other = idem.call(key("other"), "{}", String.class, ctx -> Mono.just("ch_other"))
                    .doOnError(refused::set).onErrorResume(AsyncCallsFullException.class, e -> Mono.empty())
                    .block(WAIT);
            assertThat(refused.get()).as("their slots came back").isNull();
            assertThat(other).isEqualTo("ch_other");
            held.tryEmitValue("ch_hot");
            assertThat(idem.call(key("hot"), "{}", String.class, ctx -> Mono.just("x")).block(WAIT))
                    .isEqualTo("ch_hot");
            assertThat(ran).hasValue(0);
            holder.dispose();
        }
    }

    /** An element whose JSON is written through a getter that counts how often it was written. */
    public static final class Element {
        private final int n;
        private final AtomicInteger written;

        Element(int n, AtomicInteger written) {
            this.n = n;
            this.written = written;
        }

        public int getN() {
            written.incrementAndGet();
            return n;
        }
    }

    @Test
    void aFluxPastTheOutcomeLimitIsNotKeptWholeAndEndsAsAnOutcomeNotStored() {
        try (IdempotencyEngine engine = engine().maxOutcomeBytes(1024).build()) {
            ReactorIdempotency idem = ReactorIdempotency.of(engine);
            AtomicInteger written = new AtomicInteger();
            AtomicInteger emitted = new AtomicInteger();
            AtomicInteger runs = new AtomicInteger();

            assertThatThrownBy(() -> idem.executeMany(key("big"), "{}", Element.class, CallOptions.defaults(),
                    ctx -> {
                        runs.incrementAndGet();
                        return Flux.range(0, 10_000).map(i -> new Element(i, written)).doOnNext(e -> emitted.incrementAndGet());
                    }).block(WAIT))
                    .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> {
                        assertThat(e.replayed()).isFalse();
                        assertThat(e.reason()).contains("over 1024 bytes").contains("not kept");
                    });

            assertThat(emitted).as("the work's Flux ran to its end").hasValue(10_000);
            assertThat(written.get()).as("elements written as JSON: only up to the limit, never the whole list")
                    .isLessThan(200);
            assertThatThrownBy(() -> idem.callMany(key("big"), "{}", Element.class, ctx -> {
                runs.incrementAndGet();
                return Flux.empty();
            }).blockLast(WAIT)).isInstanceOfSatisfying(OutcomeNotStoredException.class,
                    e -> assertThat(e.replayed()).isTrue());
            assertThat(runs).hasValue(1);
        }
    }

    @Test
    void aFluxWithinTheLimitIsStoredWhole() {
        try (IdempotencyEngine engine = engine().maxOutcomeBytes(1024).build()) {
            ReactorIdempotency idem = ReactorIdempotency.of(engine);
            // 90 two-digit numbers and their commas: 269 bytes, with the brackets and the header 272.
            List<Integer> first = idem.callMany(key("fits"), "{}", Integer.class, ctx -> Flux.range(10, 90))
                    .collectList().block(WAIT);
            assertThat(first).hasSize(90);
            assertThat(idem.callMany(key("fits"), "{}", Integer.class, ctx -> Flux.just(1)).collectList()
                    .block(WAIT)).isEqualTo(first);
        }
    }
}
