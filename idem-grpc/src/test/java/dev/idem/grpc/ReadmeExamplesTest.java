package dev.idem.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.grpc.test.ChargeReply;
import dev.idem.grpc.test.ChargeRequest;
import dev.idem.grpc.test.PaymentsGrpc;
import dev.idem.store.memory.MemoryIdempotencyStore;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The README's examples, compiled and run. */
class ReadmeExamplesTest {
    /** What an authentication interceptor of the application puts in the call's Context. */
    static final Context.Key<String> AUTHENTICATED_USER = Context.key("user");

    static final AtomicInteger CHARGES = new AtomicInteger();

    // tag::service[]
    class PaymentsService extends PaymentsGrpc.PaymentsImplBase {
        @Override
        public void charge(ChargeRequest request, StreamObserver<ChargeReply> responses) {
            // The running execution: its downstream key lets the payment provider deduplicate too.
            String providerKey = GrpcIdempotency.executionContext().orElseThrow().downstreamKey();
            ChargeReply charge = gateway.charge(request, providerKey);
            responses.onNext(charge);
            responses.onCompleted();
        }
    }
    // end::service[]

    final Gateway gateway = (request, providerKey) -> ChargeReply.newBuilder()
            .setId("ch_" + CHARGES.incrementAndGet()).setAmountCents(request.getAmountCents()).build();

    interface Gateway {
        ChargeReply charge(ChargeRequest request, String providerKey);
    }

    static final class CardDeclinedException extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }

    @Test
    void serverAndClient() throws Exception {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        String name = InProcessServerBuilder.generateName();
        PaymentsService paymentsService = new PaymentsService();
        // tag::server[]
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(store)
                .failureClassifier(e -> e instanceof CardDeclinedException
                        ? FailureDecision.finalFailure("card-declined", "the card was declined")
                        : FailureDecision.transientFailure())
                .build();

        GrpcIdempotency idempotency = GrpcIdempotency.builder(engine)
                // Who calls: what the application's authentication interceptor put in the Context.
                .callers(CallerResolver.contextKey(AUTHENTICATED_USER))
                .excludeFromFingerprint("/client_time")             // a field that differs per attempt
                .build();

        Server server = InProcessServerBuilder.forName(name)      // or NettyServerBuilder, ServerBuilder
                .addService(idempotency.intercept(paymentsService, "Charge"))   // unary methods by name
                .intercept(authentication)                         // runs first: outermost
                .build().start();
        // end::server[]

        // tag::client[]
        Map<String, Object> hedging = Map.of("methodConfig", List.of(Map.of(
                "name", List.of(Map.of("service", "idem.test.Payments")),
                "hedgingPolicy", Map.of("maxAttempts", 3.0, "hedgingDelay", "0.5s",
                        "nonFatalStatusCodes", List.of("UNAVAILABLE")))));

        ManagedChannel channel = InProcessChannelBuilder.forName(name)
                .intercept(IdempotentClientInterceptor.create())   // one key per call, on every copy
                .defaultServiceConfig(hedging)
                .enableRetry()
                .build();

        PaymentsGrpc.PaymentsBlockingStub payments = PaymentsGrpc.newBlockingStub(channel);
        ChargeReply charge = payments.charge(chargeRequest);

        // A key of your own (persisted before the call, so a restart sends the same one):
        ChargeReply same = payments.withOption(IdempotentClientInterceptor.KEY_OPTION, orderId)
                .charge(chargeRequest);
        // end::client[]
        ChargeReply again = payments.withOption(IdempotentClientInterceptor.KEY_OPTION, orderId)
                .charge(chargeRequest);

        assertThat(charge.getId()).isNotEqualTo(same.getId());
        assertThat(again).isEqualTo(same);
        assertThat(CHARGES).hasValue(2);
        channel.shutdownNow();
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    final String orderId = "order-2026-0042";
    final ChargeRequest chargeRequest = ChargeRequest.newBuilder().setCustomer("c-42").setAmountCents(1200)
            .setCurrency("EUR").build();

    /** A stand-in for the application's authentication: every call is alice's. */
    final io.grpc.ServerInterceptor authentication = new io.grpc.ServerInterceptor() {
        @Override
        public <Q, R> io.grpc.ServerCall.Listener<Q> interceptCall(io.grpc.ServerCall<Q, R> call,
                io.grpc.Metadata headers, io.grpc.ServerCallHandler<Q, R> next) {
            return io.grpc.Contexts.interceptCall(Context.current().withValue(AUTHENTICATED_USER, "alice"), call,
                    headers, next);
        }
    };
}
