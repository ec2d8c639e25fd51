package dev.idem.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.InProgressPolicy;
import dev.idem.grpc.test.ChargeReply;
import dev.idem.grpc.test.PaymentsGrpc;
import dev.idem.store.memory.MemoryIdempotencyStore;
import io.grpc.ForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the client interceptor is for: a channel that hedges (three copies of each call at once)
 * or retries under a retry policy, against a server that loses answers, runs each call's effect
 * once and gives every copy the same answer.
 */
class HedgingAndRetryTest {
    private static final long WAIT = 20;
    private final TestPayments payments = new TestPayments();
    private final List<Runnable> cleanup = new ArrayList<>();

    /** Every answer the server sent (or tried to: a hedged copy may be cancelled by then), per key. */
    private final Map<String, List<String>> answers = new ConcurrentHashMap<>();
    private final AtomicInteger arrivals = new AtomicInteger();

    @AfterEach
    void stop() {
        cleanup.forEach(Runnable::run);
    }

    private GrpcIdempotency idem(InProgressPolicy inProgress) {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .lease(Duration.ofSeconds(30)).build();
        return GrpcIdempotency.builder(engine).callers(CallerResolver.fixed("payments-client"))
                .callOptions(CallOptions.builder().inProgress(inProgress).build()).build();
    }

    /** Outermost on the server: records each copy's key and the answer it was given. */
    private ServerInterceptor recorder(CountDownLatch arrived) {
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                    ServerCallHandler<Q, R> next) {
                String key = headers.get(GrpcIdempotency.KEY);
                arrivals.incrementAndGet();
                arrived.countDown();
                return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                    private String message = "";

                    @Override
                    public void sendMessage(R m) {
                        message = ((ChargeReply) m).getId();
                        super.sendMessage(m);
                    }

                    @Override
                    public void close(Status status, Metadata trailers) {
                        answers.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>())
                                .add(status.getCode() + " " + message);
                        super.close(status, trailers);
                    }
                }, headers);
            }
        };
    }

    private ManagedChannel serve(io.grpc.ServerServiceDefinition service, Map<String, ?> serviceConfig)
            throws Exception {
        String name = InProcessServerBuilder.generateName();
        Server server = InProcessServerBuilder.forName(name).addService(service).build().start();
        ManagedChannel channel = InProcessChannelBuilder.forName(name).enableRetry()
                .defaultServiceConfig(serviceConfig).intercept(IdempotentClientInterceptor.create()).build();
        cleanup.add(() -> {
            channel.shutdownNow();
            server.shutdownNow();
        });
        return channel;
    }

    private static Map<String, Object> methodConfig(String policyName, Map<String, Object> policy) {
        Map<String, Object> name = Map.of("service", "idem.test.Payments", "method", "Charge");
        return Map.of("methodConfig", List.of(Map.of("name", List.of(name), policyName, policy)));
    }

    @Test
    void threeHedgedCopiesRunTheEffectOnceAndAllGetTheFirstCopysAnswer() throws Exception {
        CountDownLatch allCopies = new CountDownLatch(3);
        payments.handler = (req, out, run) -> {
            payments.book();
            // The first copy answers only once all three are at the server, so the other two
            // meet it in progress (and wait for its answer: waitUpTo).
            assertThat(allCopies.await(WAIT, TimeUnit.SECONDS)).isTrue();
            TestPayments.reply(req, out, run);
        };
        GrpcIdempotency idem = idem(InProgressPolicy.waitUpTo(Duration.ofSeconds(WAIT)));
        ManagedChannel channel = serve(ServerInterceptors.intercept(idem.intercept(payments, "Charge"),
                recorder(allCopies)), methodConfig("hedgingPolicy", Map.of("maxAttempts", 3.0,
                "hedgingDelay", "0s", "nonFatalStatusCodes", List.of("UNAVAILABLE"))));

        ChargeReply reply = PaymentsGrpc.newBlockingStub(channel).withDeadlineAfter(WAIT, TimeUnit.SECONDS)
                .charge(Calls.request(700));

        assertThat(reply.getId()).isEqualTo("ch_1");
        assertThat(arrivals).hasValue(3);
        assertThat(answers).hasSize(1);
        List<String> copies = answers.values().iterator().next();
        waitFor(() -> copies.size() == 3);
        assertThat(copies).containsOnly("OK ch_1");
        assertThat(payments.runs).hasValue(1);
        assertThat(payments.effects()).isEqualTo(1);
    }

    @Test
    void aRetryPolicyOnUnavailableAgainstAServerThatLosesAnswersRunsEachCallOnce() throws Exception {
        // Seeded, so a failing schedule can be replayed: per attempt, pass, fail before the call
        // reaches idem, or let it run and lose its answer on the way back.
        long seed = 51L;
        Random random = new Random(seed);
        Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
        ServerInterceptor faults = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                    ServerCallHandler<Q, R> next) {
                String key = headers.get(GrpcIdempotency.KEY);
                int attempt = attempts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                int fault;
                synchronized (random) {
                    fault = attempt >= 4 ? 0 : random.nextInt(3);
                }
                if (fault == 1) {
                    call.close(Status.UNAVAILABLE.withDescription("injected: connection reset"), new Metadata());
                    return new ServerCall.Listener<>() {
                    };
                }
                if (fault == 2) {
                    // The answer is lost before its headers leave (after them, gRPC commits the
                    // call and retries nothing).
                    call = new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                        @Override
                        public void sendHeaders(Metadata headers) {
                        }

                        @Override
                        public void sendMessage(R message) {
                        }

                        @Override
                        public void close(Status status, Metadata trailers) {
                            super.close(Status.UNAVAILABLE.withDescription("injected: answer lost"),
                                    new Metadata());
                        }
                    };
                }
                return next.startCall(call, headers);
            }
        };
        payments.handler = (req, out, run) -> {
            payments.book();
            TestPayments.reply(req, out, run);
        };
        GrpcIdempotency idem = idem(InProgressPolicy.failFast());
        ManagedChannel channel = serve(ServerInterceptors.intercept(idem.intercept(payments, "Charge"), faults),
                methodConfig("retryPolicy", Map.of("maxAttempts", 5.0, "initialBackoff", "0.01s",
                        "maxBackoff", "0.05s", "backoffMultiplier", 2.0, "retryableStatusCodes",
                        List.of("UNAVAILABLE"))));
        var stub = PaymentsGrpc.newBlockingStub(channel);

        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            ids.add(stub.withDeadlineAfter(WAIT, TimeUnit.SECONDS).charge(Calls.request(100 + i)).getId());
        }

        assertThat(attempts).as("seed %d", seed).hasSize(30);
        assertThat(attempts.values().stream().mapToInt(AtomicInteger::get).sum()).as("seed %d", seed)
                .isGreaterThan(30);
        assertThat(payments.runs).as("seed %d", seed).hasValue(30);
        assertThat(payments.effects()).isEqualTo(30);
        assertThat(ids).doesNotHaveDuplicates();
    }

    @Test
    void aRetryPolicyNeverRetriesAReusedKeyEvenWhenItListsItsCode() throws Exception {
        GrpcIdempotency idem = idem(InProgressPolicy.failFast());
        AtomicInteger calls = new AtomicInteger();
        ServerInterceptor counter = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                    ServerCallHandler<Q, R> next) {
                calls.incrementAndGet();
                return next.startCall(call, headers);
            }
        };
        ManagedChannel channel = serve(ServerInterceptors.intercept(idem.intercept(payments, "Charge"), counter),
                methodConfig("retryPolicy", Map.of("maxAttempts", 5.0, "initialBackoff", "0.01s",
                        "maxBackoff", "0.05s", "backoffMultiplier", 2.0, "retryableStatusCodes",
                        List.of("UNAVAILABLE", "FAILED_PRECONDITION"))));
        var stub = PaymentsGrpc.newBlockingStub(channel).withOption(IdempotentClientInterceptor.KEY_OPTION, "k-r");
        stub.charge(Calls.request(1));
        calls.set(0);

        var e = org.assertj.core.api.Assertions.catchThrowableOfType(io.grpc.StatusRuntimeException.class,
                () -> stub.charge(Calls.request(2)));

        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(calls).hasValue(1);
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited %d s", WAIT).isLessThan(end);
            Thread.sleep(5);
        }
    }
}
