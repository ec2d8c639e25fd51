package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.store.RecordState;
import dev.idem.engine.ForeignStoreWorkException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.store.jdbc.Charges.Charge;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link JdbcIdempotencyStore#transactional}: the user writes the business code only, and the
 * engine's key, token, TTL and encoding reach the one transaction by themselves.
 */
@Timeout(120)
class TransactionalWorkTest {
    private static final Duration LEASE = Duration.ofSeconds(5);

    private final String scope = "tw-" + UUID.randomUUID();
    private final MutableClock clock = new MutableClock();
    private final AtomicInteger runs = new AtomicInteger();

    private JdbcIdempotencyStore store(Backend backend, boolean other) {
        return JdbcIdempotencyStore.builder(other ? backend.otherDataSource() : backend.dataSource()).clock(clock)
                .build();
    }

    private IdempotencyEngine engine(JdbcIdempotencyStore store) {
        return IdempotencyEngine.builder().store(store).clock(clock).lease(LEASE).ttl(Duration.ofHours(1)).build();
    }

    private IdempotencyKey key(String token) {
        return IdempotencyKey.inScope(scope).operation("charge").key(token);
    }

    @Test
    void anEngineOnAnotherStoreRefusesTheWorkNamingBothStoresBeforeClaiming() {
        // The memory-store case of the same check is in readme-tests (ForeignStoreTest): this
        // module's tests must keep a single store provider on the class path.
        JdbcIdempotencyStore jdbcStore = store(Backend.H2, false);
        // A store over another DataSource object: idem cannot tell which database it reaches, so
        // only a store over the same DataSource (or Jdbi) and table counts as the same store.
        JdbcIdempotencyStore otherPool = store(Backend.H2, true);
        IdempotencyKey key = key("two-stores");

        assertThatThrownBy(() -> engine(otherPool).callAtomically(key, Map.of("amount", 10), Charge.class,
                jdbcStore.transactional(handle -> {
                    runs.incrementAndGet();
                    return Charges.insert(handle, key, 10, "w1");
                })))
                .isInstanceOf(ForeignStoreWorkException.class)
                .hasMessageContaining(jdbcStore.toString())
                .hasMessageContaining(otherPool.toString())
                .hasMessageNotContaining("fencing token");
        assertThat(runs).hasValue(0);
        assertThat(otherPool.find(key)).isEmpty();
        assertThat(jdbcStore.find(key)).isEmpty();

        // Another store object over the same DataSource and table holds the same records.
        JdbcIdempotencyStore twin = store(Backend.H2, false);
        Charge charge = engine(twin).callAtomically(key, Map.of("amount", 10), Charge.class,
                jdbcStore.transactional(handle -> Charges.insert(handle, key, 10, "w1")));
        assertThat(jdbcStore.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(charge).isNotNull();
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"H2", "POSTGRES"})
    void businessCodeAloneCommitsWithTheCompletionAndADuplicateReplays(Backend backend) {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore store = store(backend, false);
        IdempotencyEngine engine = engine(store);
        IdempotencyKey key = key("k1");

        Result<Charge> first = engine.executeAtomically(key, Map.of("amount", 10), Charge.class,
                store.transactional(handle -> {
                    runs.incrementAndGet();
                    return Charges.insert(handle, key, 10, "w1");
                }));
        Charge again = engine.callAtomically(key, Map.of("amount", 10), Charge.class,
                store.transactional(handle -> {
                    runs.incrementAndGet();
                    return Charges.insert(handle, key, 10, "w2");
                }));

        assertThat(first.replayed()).isFalse();
        assertThat(first.stored()).isTrue();
        assertThat(again).isEqualTo(first.value());
        assertThat(runs).hasValue(1);
        assertThat(charges.workers(key)).containsExactly("w1");
        assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"H2", "POSTGRES"})
    void theContextFormSeesTheExecutionAndFailingWorkRollsBackAndFreesTheKey(Backend backend) {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore store = store(backend, false);
        IdempotencyEngine engine = engine(store);
        IdempotencyKey key = key("k2");

        assertThatThrownBy(() -> engine.executeAtomically(key, "{}", Charge.class, store.transactional(handle -> {
            Charges.insert(handle, key, 10, "doomed");
            throw new IllegalStateException("gateway down");
        }))).isInstanceOf(IllegalStateException.class).hasMessage("gateway down");
        assertThat(charges.count(key)).isZero();
        assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.RELEASED);

        Result<Charge> retry = engine.executeAtomically(key, "{}", Charge.class,
                store.transactional((handle, ctx) -> Charges.insert(handle, ctx.key(), 10, "attempt-" + ctx.attempt())));
        assertThat(retry.value().worker()).isEqualTo("attempt-2");
        assertThat(charges.workers(key)).containsExactly("attempt-2");
    }

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"H2", "POSTGRES"})
    void aStaleWorkerIsRolledBackWithoutTheUserHandlingAnyToken(Backend backend) throws Exception {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore storeA = store(backend, false);
        JdbcIdempotencyStore storeB = store(backend, true);
        IdempotencyKey key = key("takeover");
        CountDownLatch inWork = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);

        CompletableFuture<Result<Charge>> stale = CompletableFuture.supplyAsync(() ->
                engine(storeA).executeAtomically(key, "{}", Charge.class, storeA.transactional(handle -> {
                    Charge c = Charges.insert(handle, key, 10, "stale");
                    inWork.countDown();
                    assertThat(resume.await(60, TimeUnit.SECONDS)).isTrue();
                    return c;
                })));
        assertThat(inWork.await(60, TimeUnit.SECONDS)).isTrue();
        clock.advance(LEASE.plusMillis(1));

        Result<Charge> fresh = engine(storeB).executeAtomically(key, "{}", Charge.class,
                storeB.transactional(handle -> Charges.insert(handle, key, 10, "fresh")));
        resume.countDown();

        assertThat(fresh.attempt()).isEqualTo(2);
        assertThatThrownBy(() -> stale.get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LeaseLostException.class);
        assertThat(charges.workers(key)).containsExactly("fresh");
    }
}
