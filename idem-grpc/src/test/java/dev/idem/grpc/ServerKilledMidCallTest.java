package dev.idem.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.grpc.Calls.Answer;
import dev.idem.grpc.test.ChargeReply;
import dev.idem.grpc.test.ChargeRequest;
import dev.idem.grpc.test.PaymentsGrpc;
import dev.idem.store.memory.MemoryIdempotencyStore;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A server killed in the middle of a call, after its effect reached the payment provider and
 * before it answered, then a new server (a new engine on the same store, as after a restart)
 * taking the call over once the dead one's lease has lapsed. The kill is the in-process server's
 * {@code shutdownNow}: its handler thread is left parked for the rest of the test, as a dead
 * process's work would be gone, and its late completion must change nothing. The provider
 * deduplicates by the execution's downstream key, so the takeover books nothing twice.
 */
class ServerKilledMidCallTest {
    private static final long WAIT = 20;
    private static final Duration LEASE = Duration.ofSeconds(10);

    private static GrpcIdempotency idem(dev.idem.api.store.IdempotencyStore store, MutableClock clock) {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).clock(clock).lease(LEASE).build();
        return GrpcIdempotency.builder(engine).callers(CallerResolver.trustedHeader("x-user")).build();
    }

    @Test
    void aCallWhoseServerDiedMidCallIsTakenOverAfterTheLeaseAndBooksOneEffect() throws Exception {
        MutableClock clock = new MutableClock();
        MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
        ChargeRequest request = Calls.request(4200);

        TestPayments first = new TestPayments();
        CountDownLatch booked = new CountDownLatch(1);
        CountDownLatch dead = new CountDownLatch(1);
        first.handler = (req, out, run) -> {
            first.book();
            booked.countDown();
            dead.await(WAIT, TimeUnit.SECONDS);      // the process is gone: no answer, ever
            TestPayments.reply(req, out, run);
        };
        // The dead server's view of the store: tells the test when its late completion was tried, and how it went.
        CountDownLatch lateCompletion = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Boolean> lateCompleted = new java.util.concurrent.atomic.AtomicReference<>();
        var storeA = new dev.idem.api.store.ForwardingIdempotencyStore(store) {
            @Override
            public boolean complete(dev.idem.api.IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
                boolean done = super.complete(key, token, outcome, ttl);
                lateCompleted.set(done);
                lateCompletion.countDown();
                return done;
            }
        };
        String nameA = InProcessServerBuilder.generateName();
        Server serverA = InProcessServerBuilder.forName(nameA).addService(idem(storeA, clock).intercept(first, "Charge"))
                .build().start();
        ManagedChannel channelA = InProcessChannelBuilder.forName(nameA).build();
        var pending = PaymentsGrpc.newFutureStub(io.grpc.ClientInterceptors.intercept(channelA,
                io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(Calls.metadata("alice", "k-kill"))))
                .charge(request);
        assertThat(booked.await(WAIT, TimeUnit.SECONDS)).isTrue();

        serverA.shutdownNow();
        Throwable lost = org.assertj.core.api.Assertions.catchThrowableOfType(ExecutionException.class,
                () -> pending.get(WAIT, TimeUnit.SECONDS)).getCause();
        assertThat(Status.fromThrowable(lost).getCode()).isIn(Status.Code.UNAVAILABLE, Status.Code.CANCELLED);

        TestPayments second = new TestPayments();
        second.handler = (req, out, run) -> {
            second.book();
            TestPayments.reply(req, out, 100 + run);
        };
        String nameB = InProcessServerBuilder.generateName();
        Server serverB = InProcessServerBuilder.forName(nameB).addService(idem(store, clock).intercept(second, "Charge"))
                .build().start();
        ManagedChannel channelB = InProcessChannelBuilder.forName(nameB).build();
        try {
            Answer whileLeased = Calls.charge(channelB, "alice", "k-kill", request);
            clock.advance(LEASE.plusSeconds(1));
            Answer takenOver = Calls.charge(channelB, "alice", "k-kill", request);

            assertThat(whileLeased.code()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(whileLeased.trailer(GrpcIdempotency.ERROR_HEADER)).isEqualTo("request-in-progress");
            assertThat(takenOver.code()).isEqualTo(Status.Code.OK);
            assertThat(takenOver.reply().getId()).isEqualTo("ch_101");
            assertThat(second.downstreamKeys).isEqualTo(first.downstreamKeys);

            // The dead worker's late completion is fenced off: the takeover's answer stands.
            dead.countDown();
            assertThat(lateCompletion.await(WAIT, TimeUnit.SECONDS)).isTrue();
            assertThat(lateCompleted.get()).isFalse();
            Answer replay = Calls.charge(channelB, "alice", "k-kill", request);
            assertThat(replay.trailer(GrpcIdempotency.STATUS_HEADER)).isEqualTo("replayed");
            assertThat(replay.reply()).isEqualTo(takenOver.reply());

            java.util.Map<String, Integer> booksPerKey = new java.util.HashMap<>();
            first.ledger.forEach((k, v) -> booksPerKey.merge(k, v.get(), Integer::sum));
            second.ledger.forEach((k, v) -> booksPerKey.merge(k, v.get(), Integer::sum));
            assertThat(booksPerKey).hasSize(1);                      // one effect at the provider
            assertThat(first.runs.get() + second.runs.get()).isEqualTo(2);
            ChargeReply stored = replay.reply();
            assertThat(stored.getAmountCents()).isEqualTo(4200);
        } finally {
            dead.countDown();
            channelA.shutdownNow();
            channelB.shutdownNow();
            serverB.shutdownNow();
        }
    }
}
