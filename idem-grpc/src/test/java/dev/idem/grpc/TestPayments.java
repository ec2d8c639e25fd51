package dev.idem.grpc;

import dev.idem.engine.ExecutionContext;
import dev.idem.grpc.test.ChargeReply;
import dev.idem.grpc.test.ChargeRequest;
import dev.idem.grpc.test.LedgerGrpc;
import dev.idem.grpc.test.PaymentsGrpc;
import io.grpc.stub.StreamObserver;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The test service. Every run of Charge counts; the effect is booked in a ledger keyed by the
 * execution's downstream key, as a payment provider that deduplicates by it would, so a takeover
 * after a crash books nothing twice. What a run answers is up to the test ({@link #handler}).
 */
final class TestPayments extends PaymentsGrpc.PaymentsImplBase {
    /** What one run of Charge does. */
    @FunctionalInterface
    interface Handler {
        void handle(ChargeRequest request, StreamObserver<ChargeReply> out, int run) throws Exception;
    }

    final AtomicInteger runs = new AtomicInteger();
    /** Downstream key to the number of times it was booked (a deduplicating provider books it once). */
    final Map<String, AtomicInteger> ledger = new ConcurrentHashMap<>();
    final Set<String> downstreamKeys = ConcurrentHashMap.newKeySet();
    volatile Handler handler = TestPayments::reply;

    static void reply(ChargeRequest request, StreamObserver<ChargeReply> out, int run) {
        out.onNext(ChargeReply.newBuilder().setId("ch_" + run).setAmountCents(request.getAmountCents())
                .setAttempt(run).build());
        out.onCompleted();
    }

    /** Books the effect with the provider: once per downstream key. */
    void book() {
        ExecutionContext ctx = GrpcIdempotency.executionContext().orElseThrow();
        downstreamKeys.add(ctx.downstreamKey());
        ledger.computeIfAbsent(ctx.downstreamKey(), k -> new AtomicInteger()).incrementAndGet();
    }

    int effects() {
        return ledger.size();
    }

    @Override
    public void charge(ChargeRequest request, StreamObserver<ChargeReply> out) {
        int run = runs.incrementAndGet();
        try {
            handler.handle(request, out, run);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void watch(ChargeRequest request, StreamObserver<ChargeReply> out) {
        reply(request, out, runs.incrementAndGet());
    }

    /** A second, all-unary service: its method is another operation for the same key. */
    static final class Ledger extends LedgerGrpc.LedgerImplBase {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public void book(ChargeRequest request, StreamObserver<ChargeReply> out) {
            reply(request, out, runs.incrementAndGet());
        }
    }
}
