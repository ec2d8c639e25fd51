package dev.idem.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.time.Deadline;
import dev.idem.client.IdempotencyKeyGenerator;
import dev.idem.grpc.test.PaymentsGrpc;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.MetadataUtils;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client interceptor's key: one per logical call, the caller's own kept, unary methods only. */
class ClientInterceptorTest {
    private final List<String> keys = new CopyOnWriteArrayList<>();
    private final List<Long> deadlines = new CopyOnWriteArrayList<>();
    private Server server;
    private ManagedChannel channel;

    @BeforeEach
    void start() throws Exception {
        ServerInterceptor record = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                    ServerCallHandler<Q, R> next) {
                keys.add(String.valueOf(headers.get(GrpcIdempotency.KEY)));
                io.grpc.Deadline d = io.grpc.Context.current().getDeadline();
                deadlines.add(d == null ? -1 : d.timeRemaining(TimeUnit.MILLISECONDS));
                return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                }, headers);
            }
        };
        String name = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(name).addService(ServerInterceptors.intercept(new TestPayments(),
                record)).build().start();
        channel = InProcessChannelBuilder.forName(name).build();
    }

    @AfterEach
    void stop() {
        channel.shutdownNow();
        server.shutdownNow();
    }

    @Test
    void eachCallGetsAFreshUuidV7Key() {
        var stub = PaymentsGrpc.newBlockingStub(ClientInterceptors.intercept(channel,
                IdempotentClientInterceptor.create()));
        stub.charge(Calls.request(1));
        stub.charge(Calls.request(1));

        assertThat(keys).hasSize(2).doesNotHaveDuplicates();
        assertThat(keys).allMatch(k -> k.matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"));
    }

    @Test
    void theKeyComesFromTheGivenGeneratorAndOnlyForTheChosenUnaryMethods() {
        IdempotencyKeyGenerator fixed = IdempotencyKeyGenerator.uuidV7(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
                new Random(7));
        var interceptor = IdempotentClientInterceptor.builder().keyGenerator(fixed)
                .methods(m -> m.getBareMethodName().equals("Charge")).build();
        var stub = PaymentsGrpc.newBlockingStub(ClientInterceptors.intercept(channel, interceptor));
        stub.charge(Calls.request(1));
        stub.watch(Calls.request(1)).forEachRemaining(r -> { });

        assertThat(keys.get(0)).startsWith("00000000-0000-7");
        assertThat(keys.get(1)).isEqualTo("null");
    }

    @Test
    void aKeyInTheCallOptionsOrAlreadyInTheMetadataIsKept() {
        var stub = PaymentsGrpc.newBlockingStub(ClientInterceptors.intercept(channel,
                IdempotentClientInterceptor.create()));
        stub.withOption(IdempotentClientInterceptor.KEY_OPTION, "order-17").charge(Calls.request(1));
        PaymentsGrpc.newBlockingStub(ClientInterceptors.intercept(channel, IdempotentClientInterceptor.create(),
                MetadataUtils.newAttachHeadersInterceptor(Calls.metadata(null, "persisted-3"))))
                .charge(Calls.request(1));

        assertThat(keys).containsExactly("order-17", "persisted-3");
        assertThatThrownBy(() -> stub.withOption(IdempotentClientInterceptor.KEY_OPTION, "a b")
                .charge(Calls.request(1))).isInstanceOf(dev.idem.api.InvalidIdempotencyKeyException.class);
    }

    @Test
    @SuppressWarnings("try") // the deadline is bound while the block runs; the scope is never read
    void aDeadlineBoundToTheThreadShortensTheCallsOwn() throws Exception {
        var stub = PaymentsGrpc.newBlockingStub(ClientInterceptors.intercept(channel,
                IdempotentClientInterceptor.create()));
        try (Deadline.Scope scope = Deadline.after(Duration.ofSeconds(5)).bind()) {
            stub.withDeadlineAfter(60, TimeUnit.SECONDS).charge(Calls.request(1));
            stub.charge(Calls.request(1));
            stub.withDeadlineAfter(2, TimeUnit.SECONDS).charge(Calls.request(1));
        }
        stub.charge(Calls.request(1));

        assertThat(deadlines.get(0)).isBetween(1L, 5000L);
        assertThat(deadlines.get(1)).isBetween(1L, 5000L);
        assertThat(deadlines.get(2)).isBetween(1L, 2000L);
        assertThat(deadlines.get(3)).isEqualTo(-1L);
    }
}
