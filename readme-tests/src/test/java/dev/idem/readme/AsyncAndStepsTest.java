package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.reactor.ReactorIdempotency;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The engine and Reactor READMEs' asynchronous, reactive and multi-step examples, run as they are printed. */
@Timeout(60)
class AsyncAndStepsTest {
    record ChargeRequest(String customer, long amountCents) {
    }

    record Charge(String id, long amountCents) {
    }

    /** A non-blocking payment client. */
    static final class AsyncGateway {
        final List<String> keys = new ArrayList<>();

        synchronized CompletionStage<Charge> charge(ChargeRequest request, String downstreamKey) {
            keys.add(downstreamKey);
            return CompletableFuture.completedFuture(new Charge("ch_" + keys.size(), request.amountCents()));
        }

        Mono<Charge> chargeMono(ChargeRequest request, String downstreamKey) {
            return Mono.defer(() -> Mono.fromCompletionStage(charge(request, downstreamKey)));
        }
    }

    private final AsyncGateway gateway = new AsyncGateway();
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build();

    private static void respond(Charge charge, boolean replayed) {
        assertThat(charge.id()).isEqualTo("ch_1");
    }

    @Test
    void completableFutures() {
        IdempotencyKey key = IdempotencyKey.inScope("customer-42").operation("create-charge").key("a-1");
        ChargeRequest chargeRequest = new ChargeRequest("customer-42", 1_000);

        // tag::async[]
        // The work returns a CompletionStage; the answer is a CompletableFuture of the value:
        CompletableFuture<Charge> charge = engine.callAsync(key, chargeRequest, Charge.class,
                ctx -> gateway.charge(chargeRequest, ctx.downstreamKey()));
        // end::async[]
        charge.join();
        // tag::async-result[]
        // ...or of the Result, when it matters whether this call ran the work (an HTTP answer):
        CompletableFuture<Result<Charge>> result = engine.executeAsync(key, chargeRequest, Charge.class,
                ctx -> gateway.charge(chargeRequest, ctx.downstreamKey()));
        result.thenAccept(r -> respond(r.value(), r.replayed()));   // a retry: replayed, the same Charge
        // end::async-result[]
        result.join();
        // tag::async-failure[]
        // A failure completes the future with the exception the blocking call throws (callbacks
        // such as exceptionally(...) on it see it as is); join() and get() wrap it, as the JDK
        // always does, in CompletionException and ExecutionException.
        CompletableFuture<Charge> reused = engine.callAsync(key, new ChargeRequest("customer-42", 2_000),
                Charge.class, ctx -> gateway.charge(chargeRequest, ctx.downstreamKey()));
        try {
            reused.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();   // KeyReusedException (422): same key, another request
        }
        // end::async-failure[]

        assertThat(result.join().replayed()).isTrue();
        assertThat(result.join().value()).isEqualTo(charge.join());
        assertThat(gateway.keys).hasSize(1);
        assertThatThrownBy(reused::join).hasCauseInstanceOf(KeyReusedException.class);
        assertThat(reused).isCompletedExceptionally();
        reused.exceptionally(e -> {
            assertThat(e).isInstanceOf(KeyReusedException.class);   // unwrapped for callbacks
            return null;
        }).join();
    }

    record Line(int number) {
    }

    /** Reads the lines of an import; each subscription reads them again. */
    static final class Importer {
        final AtomicInteger reads = new AtomicInteger();

        Flux<Line> lines(ChargeRequest request) {
            return Flux.defer(() -> {
                reads.incrementAndGet();
                return Flux.just(new Line(1), new Line(2));
            });
        }
    }

    /** A reactive payment client. */
    static final class ReactiveGateway {
        final AtomicInteger charges = new AtomicInteger();

        Mono<Charge> charge(ChargeRequest request, String downstreamKey) {
            return Mono.fromSupplier(() -> new Charge("ch_" + charges.incrementAndGet(), request.amountCents()));
        }
    }

    @Test
    void reactorModuleReadme() {
        ReactiveGateway gateway = new ReactiveGateway();
        IdempotencyKey key = IdempotencyKey.inScope("customer-42").operation("import").key("i-1");
        ChargeRequest request = new ChargeRequest("customer-42", 1);
        Importer importer = new Importer();
        // tag::reactor-module[]
        ReactorIdempotency idem = ReactorIdempotency.of(engine);
        Mono<Charge> charge = idem.call(key, request, Charge.class,
                ctx -> gateway.charge(request, ctx.downstreamKey()));          // lazy: runs on subscription
        Flux<Line> lines = idem.callMany(key, request, Line.class, ctx -> importer.lines(request));
        // end::reactor-module[]
        assertThat(charge).isNotNull();
        assertThat(lines.collectList().block()).containsExactly(new Line(1), new Line(2));
        assertThat(lines.collectList().block()).containsExactly(new Line(1), new Line(2));   // replayed
        assertThat(importer.reads).hasValue(1);
        assertThat(gateway.charges).hasValue(0);   // never subscribed, never run
    }

    @Test
    void reactor() {
        IdempotencyKey key = IdempotencyKey.inScope("customer-42").operation("create-charge").key("r-1");
        ChargeRequest chargeRequest = new ChargeRequest("customer-42", 1_000);

        ReactorIdempotency idem = ReactorIdempotency.of(engine);
        Mono<Charge> charge = idem.call(key, chargeRequest, Charge.class,
                ctx -> gateway.chargeMono(chargeRequest, ctx.downstreamKey()));   // lazy: nothing runs yet

        assertThat(gateway.keys).isEmpty();
        Charge first = charge.block();
        assertThat(charge.block()).isEqualTo(first);   // each subscription is one engine call: a replay
        assertThat(gateway.keys).hasSize(1);
    }

    record OrderRequest(String orderId, long totalCents) {
    }

    record Reservation(String id) {
    }

    record Order(String id, String chargeId) {
    }

    /** Three downstream services; each records its effects so the test can count them. */
    static final class Services {
        final List<String> effects = new ArrayList<>();
        boolean failShippingOnce = true;

        synchronized Reservation reserve(OrderRequest order) {
            effects.add("reserve " + order.orderId());
            return new Reservation("r-" + order.orderId());
        }

        synchronized Charge charge(long amountCents, String downstreamKey) {
            effects.add("charge " + downstreamKey);
            return new Charge("ch-" + downstreamKey.hashCode(), amountCents);
        }

        synchronized void ship(OrderRequest order, Reservation reservation, String downstreamKey) {
            if (failShippingOnce) {
                failShippingOnce = false;
                throw new IllegalStateException("shipping service unavailable");   // transient
            }
            effects.add("ship " + reservation.id());
        }
    }

    @Test
    void stepsResumeWhereTheFailedAttemptStopped() {
        Services services = new Services();
        Services stock = services;
        Services psp = services;
        Services shipping = services;
        IdempotencyKey key = IdempotencyKey.inScope("customer-42").operation("place-order").key("o-1");
        OrderRequest orderRequest = new OrderRequest("o-1", 5_000);
        // A journaled key failed by a transient error is handed back with a lease of a millisecond
        // (its journal kept); on the store's own clock the retry comes after it, not by chance.
        MutableClock clock = new MutableClock();
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(MemoryIdempotencyStore.builder().clock(clock).build()).build();

        for (int attempt = 1; attempt <= 2; attempt++) {
            clock.advance(Duration.ofSeconds(1));
            try {
                // tag::steps[]
                Result<Order> r = engine.execute(key, orderRequest, Order.class, ctx -> {
                    Reservation res = ctx.step("reserve", Reservation.class, () -> stock.reserve(orderRequest));
                    Charge charge = ctx.step("charge", Charge.class,   // the PSP dedupes by this key
                            () -> psp.charge(orderRequest.totalCents(), ctx.downstreamKey("charge")));
                    ctx.step("ship", () -> shipping.ship(orderRequest, res, ctx.downstreamKey("ship")));
                    return new Order(orderRequest.orderId(), charge.id());
                });
                // end::steps[]
                assertThat(r.value().id()).isEqualTo("o-1");
            } catch (IllegalStateException transientFailure) {
                assertThat(attempt).isEqualTo(1);
            }
        }
        // The retry took "reserve" and "charge" from the journal and ran only "ship".
        assertThat(services.effects).hasSize(3).doesNotHaveDuplicates();
    }
}
