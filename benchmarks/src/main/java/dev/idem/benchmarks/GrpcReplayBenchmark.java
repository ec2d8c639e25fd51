package dev.idem.benchmarks;

import dev.idem.benchmarks.grpc.PaymentReply;
import dev.idem.benchmarks.grpc.PaymentRequest;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.grpc.CallerResolver;
import dev.idem.grpc.GrpcIdempotency;
import dev.idem.store.memory.MemoryIdempotencyStore;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What idem-grpc adds to a unary gRPC call: a replay (the key completed once in the setup, so every
 * measured call is answered from the in-memory store: key parsing, the request's canonical-JSON
 * fingerprint, the store read, the stored answer parsed and sent with its trailers) against the same
 * call to the same service without idem (the handler builds its reply). Both on grpc-java's
 * in-process transport with direct executors on either side, so the numbers are the calls' own work,
 * not thread hand-offs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class GrpcReplayBenchmark {
    static final MethodDescriptor<PaymentRequest, PaymentReply> CHARGE = MethodDescriptor
            .<PaymentRequest, PaymentReply>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("idem.bench.Payments/Charge")
            .setRequestMarshaller(ProtoUtils.marshaller(PaymentRequest.getDefaultInstance()))
            .setResponseMarshaller(ProtoUtils.marshaller(PaymentReply.getDefaultInstance())).build();

    static final PaymentRequest REQUEST = PaymentRequest.newBuilder().setCustomer("customer-42")
            .setAmountCents(12_500).setCurrency("EUR").putMetadata("order", "ord-2026-0042")
            .putMetadata("channel", "web").addItems("sku-1").addItems("sku-2").addItems("sku-3").build();

    /** How many times the handler ran: once in the setup of the idem server, then only for plain calls. */
    final AtomicInteger runs = new AtomicInteger();
    private Server plainServer;
    private Server idemServer;
    private ManagedChannel plainChannel;
    private ManagedChannel idemChannel;
    private Channel keyed;
    private IdempotencyEngine engine;

    ServerServiceDefinition service() {
        return ServerServiceDefinition.builder("idem.bench.Payments")
                .addMethod(CHARGE, ServerCalls.asyncUnaryCall((request, out) -> {
                    out.onNext(PaymentReply.newBuilder().setId("ch_" + runs.incrementAndGet())
                            .setAmountCents(request.getAmountCents()).setStatus("succeeded").build());
                    out.onCompleted();
                }))
                .build();
    }

    /** Starts both servers and completes the idem call's key once. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .lease(StoreBenchmark.LEASE).ttl(StoreBenchmark.TTL).build();
        GrpcIdempotency idem = GrpcIdempotency.builder(engine).callers(CallerResolver.fixed("bench")).build();
        String plainName = InProcessServerBuilder.generateName();
        String idemName = InProcessServerBuilder.generateName();
        plainServer = InProcessServerBuilder.forName(plainName).directExecutor().addService(service()).build()
                .start();
        idemServer = InProcessServerBuilder.forName(idemName).directExecutor().addService(idem.intercept(service()))
                .build().start();
        plainChannel = InProcessChannelBuilder.forName(plainName).directExecutor().build();
        idemChannel = InProcessChannelBuilder.forName(idemName).directExecutor().build();
        Metadata key = new Metadata();
        key.put(GrpcIdempotency.KEY, "0192f0c4-7a1e-7c3b-9d4e-5f6a7b8c9d0e");
        keyed = ClientInterceptors.intercept(idemChannel, MetadataUtils.newAttachHeadersInterceptor(key));
        ClientCalls.blockingUnaryCall(keyed, CHARGE, CallOptions.DEFAULT, REQUEST);
    }

    /** Stops the channels and servers. */
    @TearDown(Level.Trial)
    public void tearDown() {
        plainChannel.shutdownNow();
        idemChannel.shutdownNow();
        plainServer.shutdownNow();
        idemServer.shutdownNow();
        engine.close();
    }

    /** The call through idem-grpc, answered from the store. */
    @Benchmark
    public PaymentReply replay() {
        return ClientCalls.blockingUnaryCall(keyed, CHARGE, CallOptions.DEFAULT, REQUEST);
    }

    /** The same call to the same service without idem. */
    @Benchmark
    public PaymentReply withoutIdem() {
        return ClientCalls.blockingUnaryCall(plainChannel, CHARGE, CallOptions.DEFAULT, REQUEST);
    }
}
