package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.InProgressPolicy;
import dev.idem.engine.Result;
import dev.idem.store.jdbc.Charges.Charge;
import dev.idem.store.tck.Races;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The business write and the fenced completion commit in one transaction
 * ({@link JdbcIdempotencyStore#inTransaction} under {@code engine.executeAtomically}).
 */
@Timeout(120)
class TransactionalModeTest {
    private static final Duration LEASE = Duration.ofMillis(500);

    private final String scope = "tx-" + UUID.randomUUID();

    private static IdempotencyEngine engine(JdbcIdempotencyStore store) {
        return IdempotencyEngine.builder().store(store).lease(Duration.ofSeconds(30)).ttl(Duration.ofHours(1))
                .build();
    }

    private static Result<Charge> charge(IdempotencyEngine engine, JdbcIdempotencyStore store, IdempotencyKey key,
            CallOptions options, String worker, AtomicInteger runs, Runnable midWork) {
        return engine.executeAtomically(key, Map.of("amount", 10), Charge.class, options, (ctx, completion) ->
                store.inTransaction(ctx.key(), ctx.fencingToken(), completion.ttl(), completion::encode, h -> {
                    runs.incrementAndGet();
                    Charge c = Charges.insert(h, ctx.key(), 10, worker);
                    midWork.run();
                    return c;
                }));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void businessRowAndCompletionCommitTogetherAndReplayDoesNotRunTheWorkAgain(Backend backend) {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore store = backend.store();
        IdempotencyEngine engine = engine(store);
        IdempotencyKey key = IdempotencyKey.of(scope, "charge", "k1");
        AtomicInteger runs = new AtomicInteger();

        Result<Charge> first = charge(engine, store, key, CallOptions.defaults(), "w1", runs, () -> { });
        assertThat(first.replayed()).isFalse();
        assertThat(charges.count(key)).isEqualTo(1);
        assertThat(store.find(key)).get().extracting(r -> r.state()).isEqualTo(RecordState.COMPLETED);

        Result<Charge> again = charge(engine, store, key, CallOptions.defaults(), "w2", runs, () -> { });
        assertThat(again.replayed()).isTrue();
        assertThat(again.value()).isEqualTo(first.value());
        assertThat(runs).hasValue(1);
        assertThat(charges.count(key)).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void failingWorkRollsBackItsBusinessWriteAndLeavesTheKeyFree(Backend backend) {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore store = backend.store();
        IdempotencyEngine engine = engine(store);
        IdempotencyKey key = IdempotencyKey.of(scope, "charge", "fails");
        AtomicInteger runs = new AtomicInteger();

        assertThatThrownBy(() -> charge(engine, store, key, CallOptions.defaults(), "w1", runs, () -> {
            throw new IllegalStateException("card declined by a flaky gateway");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(charges.count(key)).isZero();
        assertThat(store.find(key)).get().extracting(r -> r.state()).isEqualTo(RecordState.RELEASED);

        Result<Charge> retry = charge(engine, store, key, CallOptions.defaults(), "w2", runs, () -> { });
        assertThat(retry.attempt()).isEqualTo(2);
        assertThat(charges.workers(key)).containsExactly("w2");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void staleWorkerWhoseLeaseWasTakenOverIsRolledBackAndExactlyOneChargeExists(Backend backend) throws Exception {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore storeA = backend.store();
        JdbcIdempotencyStore storeB = backend.otherStore();
        IdempotencyEngine engineA = engine(storeA);
        IdempotencyEngine engineB = engine(storeB);
        IdempotencyKey key = IdempotencyKey.of(scope, "charge", "takeover");
        CallOptions shortLease = CallOptions.builder().lease(LEASE).build();
        CountDownLatch inWork = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();

        CompletableFuture<Result<Charge>> stale = CompletableFuture.supplyAsync(() ->
                charge(engineA, storeA, key, shortLease, "stale", runs, () -> {
                    inWork.countDown();
                    await(resume);
                }));
        assertThat(inWork.await(30, TimeUnit.SECONDS)).isTrue();
        // Let the stale worker's lease lapse on the database clock while it is still working.
        Thread.sleep(LEASE.plusMillis(200).toMillis());

        Result<Charge> fresh = charge(engineB, storeB, key, shortLease, "fresh", runs, () -> { });
        assertThat(fresh.replayed()).isFalse();
        assertThat(fresh.attempt()).isEqualTo(2);

        resume.countDown();
        assertThatThrownBy(() -> stale.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LeaseLostException.class);

        assertThat(runs).hasValue(2);
        assertThat(charges.workers(key)).containsExactly("fresh");
        Result<Charge> replay = charge(engineA, storeA, key, shortLease, "late", runs, () -> { });
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(fresh.value());
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void storeLevelCompletionWithAStaleTokenRollsTheBusinessWriteBack(Backend backend) {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore store = backend.store();
        IdempotencyKey key = IdempotencyKey.of(scope, "charge", "fenced");
        ClaimResult claim = store.claim(key, new byte[] {1}, 41L, Duration.ofSeconds(30), Duration.ofHours(1));
        assertThat(claim.claimed()).isTrue();

        assertThatThrownBy(() -> store.inTransaction(key, 42L, Duration.ofHours(1),
                c -> "x".getBytes(StandardCharsets.UTF_8), h -> Charges.insert(h, key, 5, "wrong-token")))
                .isInstanceOf(LeaseLostException.class);
        assertThat(charges.count(key)).isZero();
        assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);

        Charge ok = store.inTransaction(key, 41L, Duration.ofHours(1), c -> c.id().getBytes(StandardCharsets.UTF_8),
                h -> Charges.insert(h, key, 5, "holder"));
        assertThat(charges.workers(key)).containsExactly("holder");
        assertThat(store.find(key).orElseThrow().outcome()).isEqualTo(ok.id().getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void manyThreadsOnOneKeyMakeExactlyOneCharge(Backend backend) throws Exception {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore storeA = backend.store();
        JdbcIdempotencyStore storeB = backend.otherStore();
        IdempotencyEngine engineA = engine(storeA);
        IdempotencyEngine engineB = engine(storeB);
        IdempotencyKey key = IdempotencyKey.of(scope, "charge", "herd");
        CallOptions waitForWinner = CallOptions.builder().inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(30)))
                .build();
        AtomicInteger runs = new AtomicInteger();

        List<List<Result<Charge>>> results = Races.run(12, 1, (thread, k) -> thread % 2 == 0
                ? charge(engineA, storeA, key, waitForWinner, "t" + thread, runs, () -> { })
                : charge(engineB, storeB, key, waitForWinner, "t" + thread, runs, () -> { }));

        List<Result<Charge>> all = results.get(0);
        assertThat(all).hasSize(12);
        assertThat(all.stream().filter(r -> !r.replayed())).hasSize(1);
        assertThat(all.stream().map(Result::value).distinct()).hasSize(1);
        assertThat(runs).hasValue(1);
        assertThat(charges.count(key)).isEqualTo(1);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("test latch not released within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
