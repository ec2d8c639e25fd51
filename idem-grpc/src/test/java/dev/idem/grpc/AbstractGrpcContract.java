package dev.idem.grpc;

import static dev.idem.grpc.Calls.charge;
import static dev.idem.grpc.Calls.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.CallOptions;
import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.grpc.Calls.Answer;
import dev.idem.grpc.test.ChargeReply;
import dev.idem.grpc.test.ChargeRequest;
import dev.idem.grpc.test.PaymentsGrpc;
import dev.idem.store.memory.MemoryIdempotencyStore;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The idempotency contract of a unary gRPC method, over a real gRPC transport (each subclass
 * starts a server and a channel of its own kind): the cases of idem-http's contract suite that
 * apply to gRPC. Callers are named by the {@code x-user} header (a trusted gateway's);
 * {@code Payments/Charge} requires a key, {@code Ledger/Book} does not; an
 * {@link IllegalArgumentException} from the handler is a final failure ({@code card-declined}).
 */
abstract class AbstractGrpcContract {
    static final long WAIT = 20;

    /** Starts a server with {@code services} and returns a channel to it. */
    abstract ManagedChannel start(List<ServerServiceDefinition> services) throws Exception;

    /** Stops the server and the channel. */
    abstract void stop() throws Exception;

    final TestPayments payments = new TestPayments();
    final TestPayments.Ledger ledger = new TestPayments.Ledger();
    SwitchableStore store;
    IdempotencyEngine engine;
    GrpcIdempotency idem;
    ManagedChannel channel;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @BeforeEach
    void startServer() throws Exception {
        store = new SwitchableStore(MemoryIdempotencyStore.create());
        engine = IdempotencyEngine.builder().store(store).lease(Duration.ofSeconds(10)).ttl(Duration.ofHours(1))
                .maxOutcomeBytes(4096)
                .failureClassifier(e -> e instanceof IllegalArgumentException
                        ? FailureDecision.finalFailure("card-declined", e.getMessage())
                        : FailureDecision.transientFailure())
                .build();
        idem = GrpcIdempotency.builder(engine)
                .callers(CallerResolver.trustedHeader("x-user"))
                .keyRequired(method -> !method.equals("idem.test.Ledger/Book"))
                .excludeFromFingerprint("/client_time")
                .storeRetryAfter(Duration.ofSeconds(3))
                .build();
        channel = start(List.of(
                ServerInterceptors.intercept(idem.intercept(payments, "Charge"), expiringDeadline()),
                idem.intercept(ledger)));
    }

    @AfterEach
    void stopServer() throws Exception {
        stop();
        scheduler.shutdownNow();
    }

    /** A call with {@code x-expire} arrives with its deadline already spent (as after a long queue). */
    private ServerInterceptor expiringDeadline() {
        Metadata.Key<String> expire = Metadata.Key.of("x-expire", Metadata.ASCII_STRING_MARSHALLER);
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                    ServerCallHandler<Q, R> next) {
                if (!headers.containsKey(expire)) {
                    return next.startCall(call, headers);
                }
                Context spent = Context.current().withDeadline(io.grpc.Deadline.after(-1, TimeUnit.SECONDS),
                        scheduler);
                return Contexts.interceptCall(spent, call, headers, next);
            }
        };
    }

    static void assertRefused(Answer a, Status.Code code, String error, boolean retryable) {
        assertThat(a.code()).as(a.status().toString()).isEqualTo(code);
        assertThat(a.trailer(GrpcIdempotency.ERROR_HEADER)).isEqualTo(error);
        if (retryable) {
            assertThat(Integer.parseInt(a.trailer(GrpcIdempotency.PUSHBACK_HEADER))).isNotNegative();
        } else {
            assertThat(a.trailer(GrpcIdempotency.PUSHBACK_HEADER)).isEqualTo("-1");
        }
    }

    @Test
    void theFirstAnswerIsStoredAndReplayedWithItsStatusHeadersAndTrailers() {
        Metadata.Key<String> h = Metadata.Key.of("x-h", Metadata.ASCII_STRING_MARSHALLER);
        Metadata.Key<String> t = Metadata.Key.of("x-t", Metadata.ASCII_STRING_MARSHALLER);
        Metadata.Key<byte[]> b = Metadata.Key.of("x-b-bin", Metadata.BINARY_BYTE_MARSHALLER);
        payments.handler = (req, out, run) -> {
            io.grpc.stub.ServerCallStreamObserver<ChargeReply> call =
                    (io.grpc.stub.ServerCallStreamObserver<ChargeReply>) out;
            Metadata headers = new Metadata();
            headers.put(h, "header-" + run);
            headers.put(h, "second");
            TestPayments.reply(req, new io.grpc.stub.StreamObserver<>() {
                @Override
                public void onNext(ChargeReply value) {
                    call.onNext(value);
                }

                @Override
                public void onError(Throwable e) {
                    call.onError(e);
                }

                @Override
                public void onCompleted() {
                    Metadata trailers = new Metadata();
                    trailers.put(t, "trailer-" + run);
                    trailers.put(b, new byte[] {0, 1, (byte) 0xff});
                    call.onError(Status.OK.asRuntimeException(trailers));
                }
            }, run);
        };
        Answer first = charge(channel, "alice", "k-1", request(1200));
        Answer replay = charge(channel, "alice", "k-1", request(1200));

        assertThat(first.code()).isEqualTo(Status.Code.OK);
        assertThat(first.reply().getId()).isEqualTo("ch_1");
        assertThat(first.trailer(GrpcIdempotency.STATUS_HEADER)).isEqualTo("stored");
        assertThat(replay.code()).isEqualTo(Status.Code.OK);
        assertThat(replay.reply()).isEqualTo(first.reply());
        assertThat(replay.trailer(GrpcIdempotency.STATUS_HEADER)).isEqualTo("replayed");
        assertThat(replay.trailers().get(t)).isEqualTo("trailer-1");
        assertThat(replay.trailers().get(b)).containsExactly(0, 1, 0xff);
        assertThat(payments.runs).hasValue(1);
    }

    @Test
    void anErrorStatusTheHandlerChoseIsStoredWithItsDescriptionAndTrailers() {
        Metadata.Key<String> t = Metadata.Key.of("x-reason", Metadata.ASCII_STRING_MARSHALLER);
        payments.handler = (req, out, run) -> {
            Metadata trailers = new Metadata();
            trailers.put(t, "limit-" + run);
            out.onError(Status.INVALID_ARGUMENT.withDescription("amount over the limit").asRuntimeException(trailers));
        };
        Answer first = charge(channel, "alice", "k-e", request(1));
        Answer replay = charge(channel, "alice", "k-e", request(1));

        assertThat(first.status().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(first.trailer(GrpcIdempotency.STATUS_HEADER)).isEqualTo("stored");
        assertThat(replay.status().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(replay.status().getDescription()).isEqualTo("amount over the limit");
        assertThat(replay.trailer("x-reason")).isEqualTo("limit-1");
        assertThat(replay.trailer(GrpcIdempotency.STATUS_HEADER)).isEqualTo("replayed");
        assertThat(payments.runs).hasValue(1);
    }

    @Test
    void transientStatusesAreSentButReleaseTheKey() {
        payments.handler = (req, out, run) -> {
            if (run == 1) {
                out.onError(Status.UNAVAILABLE.withDescription("ledger busy").asRuntimeException());
            } else {
                TestPayments.reply(req, out, run);
            }
        };
        Answer first = charge(channel, "alice", "k-u", request(1));
        Answer retry = charge(channel, "alice", "k-u", request(1));

        assertThat(first.code()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(first.status().getDescription()).isEqualTo("ledger busy");
        assertThat(first.trailer(GrpcIdempotency.STATUS_HEADER)).isNull();
        assertThat(retry.code()).isEqualTo(Status.Code.OK);
        assertThat(retry.reply().getId()).isEqualTo("ch_2");
        assertThat(retry.trailer(GrpcIdempotency.STATUS_HEADER)).isEqualTo("stored");
    }

    @Test
    void theFingerprintIgnoresMapOrderAndExcludedFieldsButNotTheAmount() {
        ChargeRequest a = request(500).toBuilder().putTags("a", "1").putTags("b", "2").setClientTime("10:00").build();
        ChargeRequest b = request(500).toBuilder().putTags("b", "2").putTags("a", "1").setClientTime("10:05").build();
        Answer first = charge(channel, "alice", "k-f", a);
        Answer same = charge(channel, "alice", "k-f", b);
        Answer other = charge(channel, "alice", "k-f", request(501));

        assertThat(same.trailer(GrpcIdempotency.STATUS_HEADER)).isEqualTo("replayed");
        assertThat(same.reply()).isEqualTo(first.reply());
        assertRefused(other, Status.Code.FAILED_PRECONDITION, "key-reused", false);
        assertThat(payments.runs).hasValue(1);
    }

    @Test
    void theKeyIsScopedByCallerAndByMethod() {
        charge(channel, "alice", "k-s", request(1));
        Answer bob = charge(channel, "bob", "k-s", request(1));
        Answer book = Calls.book(channel, "alice", "k-s", request(1));

        assertThat(bob.trailer(GrpcIdempotency.STATUS_HEADER)).isEqualTo("stored");
        assertThat(book.trailer(GrpcIdempotency.STATUS_HEADER)).isEqualTo("stored");
        assertThat(payments.runs).hasValue(2);
        assertThat(ledger.runs).hasValue(1);
    }

    @Test
    void aMissingKeyIsRefusedWhereTheMethodRequiresOneAndPassesThroughElsewhere() {
        Answer charge = charge(channel, "alice", null, request(1));
        Answer book1 = Calls.book(channel, "alice", null, request(1));
        Answer book2 = Calls.book(channel, "alice", null, request(1));

        assertRefused(charge, Status.Code.INVALID_ARGUMENT, "missing-key", false);
        assertThat(payments.runs).hasValue(0);
        assertThat(book1.code()).isEqualTo(Status.Code.OK);
        assertThat(book2.trailer(GrpcIdempotency.STATUS_HEADER)).isNull();
        assertThat(ledger.runs).hasValue(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"unterminated", "\"bad\\escape\"", "\"\"", "a b", "\"k\" trailing"})
    void aMalformedKeyIsInvalidArgument(String key) {
        Answer a = charge(channel, "alice", key, request(1));

        assertRefused(a, Status.Code.INVALID_ARGUMENT, "invalid-key", false);
        assertThat(payments.runs).hasValue(0);
    }

    @Test
    void tooLongAndRepeatedKeysAreInvalidArgument() {
        Answer tooLong = charge(channel, "alice", "k".repeat(256), request(1));
        Metadata twice = Calls.metadata("alice", "k-1");
        twice.put(GrpcIdempotency.KEY, "k-2");
        Answer repeated = charge(channel, twice, request(1), s -> s);
        Answer longest = charge(channel, "alice", "k".repeat(255), request(1));

        assertRefused(tooLong, Status.Code.INVALID_ARGUMENT, "invalid-key", false);
        assertRefused(repeated, Status.Code.INVALID_ARGUMENT, "invalid-key", false);
        assertThat(longest.code()).isEqualTo(Status.Code.OK);
        assertThat(payments.runs).hasValue(1);
    }

    @Test
    void theStructuredFieldStringAndTheBareTokenAreTheSameKey() {
        charge(channel, "alice", "\"k-q\"", request(1));
        Answer bare = charge(channel, "alice", "k-q", request(1));

        assertThat(bare.trailer(GrpcIdempotency.STATUS_HEADER)).isEqualTo("replayed");
        assertThat(payments.runs).hasValue(1);
    }

    @Test
    void aCallWithoutCallerIsUnauthenticatedAndRunsNothing() {
        Answer a = charge(channel, null, "k-a", request(1));

        assertRefused(a, Status.Code.UNAUTHENTICATED, "unauthenticated", false);
        assertThat(payments.runs).hasValue(0);
        assertThat(store.delegate().find(dev.idem.api.IdempotencyKey.of("alice", "idem.test.Payments/Charge",
                "k-a"))).isEmpty();
    }

    @Test
    void aDuplicateWhileInProgressIsUnavailableWithPushbackThenReplays() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        payments.handler = (req, out, run) -> {
            running.countDown();
            assertThat(release.await(WAIT, TimeUnit.SECONDS)).isTrue();
            TestPayments.reply(req, out, run);
        };
        CompletableFuture<Answer> first = CompletableFuture.supplyAsync(() -> charge(channel, "alice", "k-p",
                request(1)));
        assertThat(running.await(WAIT, TimeUnit.SECONDS)).isTrue();
        Answer duplicate = charge(channel, "alice", "k-p", request(1));
        release.countDown();
        Answer done = first.get(WAIT, TimeUnit.SECONDS);
        Answer replay = charge(channel, "alice", "k-p", request(1));

        assertRefused(duplicate, Status.Code.UNAVAILABLE, "request-in-progress", true);
        assertThat(done.trailer(GrpcIdempotency.STATUS_HEADER)).isEqualTo("stored");
        assertThat(replay.reply()).isEqualTo(done.reply());
        assertThat(payments.runs).hasValue(1);
    }

    @Test
    void anUnavailableStoreIsUnavailableWithItsPushbackAndRunsNothing() {
        store.down = true;
        Answer a = charge(channel, "alice", "k-d", request(1));
        store.down = false;

        assertRefused(a, Status.Code.UNAVAILABLE, "store-unavailable", true);
        assertThat(a.trailer(GrpcIdempotency.PUSHBACK_HEADER)).isEqualTo("3000");
        assertThat(payments.runs).hasValue(0);
        assertThat(charge(channel, "alice", "k-d", request(1)).code()).isEqualTo(Status.Code.OK);
    }

    @Test
    void anExceptionReleasesTheKeySoTheRetryRunsAgain() {
        payments.handler = (req, out, run) -> {
            if (run == 1) {
                throw new IllegalStateException("ledger connection reset");
            }
            TestPayments.reply(req, out, run);
        };
        Answer first = charge(channel, "alice", "k-x", request(1));
        Answer retry = charge(channel, "alice", "k-x", request(1));

        assertThat(first.code()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(first.trailer(GrpcIdempotency.ERROR_HEADER)).isEqualTo("handler-failed");
        assertThat(retry.reply().getId()).isEqualTo("ch_2");
    }

    @Test
    void aFinalFailureIsFailedPreconditionWithItsCodeOnEveryCall() {
        payments.handler = (req, out, run) -> {
            throw new IllegalArgumentException("card declined by issuer");
        };
        Answer first = charge(channel, "alice", "k-ff", request(1));
        Answer replay = charge(channel, "alice", "k-ff", request(1));

        for (Answer a : List.of(first, replay)) {
            assertRefused(a, Status.Code.FAILED_PRECONDITION, "replayed-failure", false);
            assertThat(a.status().getDescription()).isEqualTo("card declined by issuer");
            assertThat(a.trailer(GrpcIdempotency.FAILURE_CODE_HEADER)).isEqualTo("card-declined");
        }
        assertThat(payments.runs).hasValue(1);
    }

    @Test
    void anAnswerLargerThanTheStoreHoldsIsOutcomeNotStoredOnEveryCall() {
        payments.handler = (req, out, run) -> {
            out.onNext(ChargeReply.newBuilder().setId("x".repeat(8000)).build());
            out.onCompleted();
        };
        Answer first = charge(channel, "alice", "k-big", request(1));
        Answer again = charge(channel, "alice", "k-big", request(1));

        assertRefused(first, Status.Code.INTERNAL, "outcome-not-stored", false);
        assertRefused(again, Status.Code.INTERNAL, "outcome-not-stored", false);
        assertThat(payments.runs).hasValue(1);
    }

    @Test
    void theHandlerSeesItsExecutionAndTheCallersDeadline() {
        payments.handler = (req, out, run) -> {
            var ctx = GrpcIdempotency.executionContext().orElseThrow();
            Duration left = ctx.deadline().orElseThrow().remaining();
            out.onNext(ChargeReply.newBuilder().setId(ctx.downstreamKey()).setAttempt((int) left.toSeconds())
                    .build());
            out.onCompleted();
        };
        Answer a = charge(channel, Calls.metadata("alice", "k-c"), request(1),
                s -> s.withDeadlineAfter(30, TimeUnit.SECONDS));

        assertThat(a.reply().getId()).isNotEmpty();
        assertThat(a.reply().getAttempt()).isBetween(1, 30);
    }

    @Test
    void aSpentDeadlineIsDeadlineExceededBeforeAnythingIsClaimed() {
        Metadata md = Calls.metadata("alice", "k-dl");
        md.put(Metadata.Key.of("x-expire", Metadata.ASCII_STRING_MARSHALLER), "1");
        Answer a = charge(channel, md, request(1), s -> s);

        assertRefused(a, Status.Code.DEADLINE_EXCEEDED, "deadline-exceeded", false);
        assertThat(payments.runs).hasValue(0);
        assertThat(charge(channel, "alice", "k-dl", request(1)).trailer(GrpcIdempotency.STATUS_HEADER))
                .isEqualTo("stored");
    }

    @Test
    void aHandlerThatOutlivesItsCallersDeadlineStillHasItsAnswerStoredAndReplayed() throws Exception {
        CountDownLatch callerGaveUp = new CountDownLatch(1);
        payments.handler = (req, out, run) -> {
            assertThat(callerGaveUp.await(WAIT, TimeUnit.SECONDS)).isTrue();
            TestPayments.reply(req, out, run);
        };
        Answer late = charge(channel, Calls.metadata("alice", "k-late"), request(1),
                s -> s.withDeadlineAfter(300, TimeUnit.MILLISECONDS));
        callerGaveUp.countDown();
        assertThat(late.code()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);

        Answer retry = null;
        for (int i = 0; i < 200; i++) {
            retry = charge(channel, "alice", "k-late", request(1));
            if (retry.code() == Status.Code.OK) {
                break;
            }
            assertRefused(retry, Status.Code.UNAVAILABLE, "request-in-progress", true);
            Thread.sleep(50);
        }
        assertThat(retry.trailer(GrpcIdempotency.STATUS_HEADER)).isEqualTo("replayed");
        assertThat(retry.reply().getId()).isEqualTo("ch_1");
        assertThat(payments.runs).hasValue(1);
    }

    @Test
    void aStreamingMethodWithAKeyIsUnimplementedAndWithoutOnePassesThrough() throws Exception {
        stop();
        channel = start(List.of(ServerInterceptors.intercept(payments, idem.serverInterceptor())));
        var stub = PaymentsGrpc.newBlockingStub(io.grpc.ClientInterceptors.intercept(channel,
                io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(Calls.metadata("alice", "k-w"))));
        StatusRuntimeException refused = null;
        try {
            Iterator<ChargeReply> it = stub.watch(request(1));
            it.hasNext();
        } catch (StatusRuntimeException e) {
            refused = e;
        }
        var plain = PaymentsGrpc.newBlockingStub(channel).watch(request(1));

        assertThat(refused).isNotNull();
        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(plain.next().getId()).isEqualTo("ch_1");
    }

    @Test
    void callOptionsWithADeadlineAreRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> GrpcIdempotency.builder(engine)
                .callOptions(CallOptions.defaults().withDeadline(dev.idem.api.time.Deadline.after(
                        Duration.ofSeconds(1))))).isInstanceOf(IllegalArgumentException.class);
    }
}
