package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.store.jdbc.Charges.Charge;
import dev.idem.testsupport.FreePorts;
import dev.idem.testsupport.TempDirs;
import dev.idem.testsupport.jdbc.TestPools;
import dev.idem.testsupport.postgres.EmbeddedPostgresServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * PostgreSQL is stopped mid-run and started again on the same port and data directory:
 * calls fail with StoreUnavailableException without running the work, the work cut off
 * mid-transaction leaves no business row, and everything recovers once the database is back.
 */
@Timeout(120)
class DatabaseOutageTest {
    private static final Duration LEASE = Duration.ofMillis(800);

    @Test
    void outageGivesStoreUnavailableNoDoubleExecutionAndRecovery() throws Exception {
        Path dataDir = TempDirs.create("idem-pg-outage");
        int port = FreePorts.next();
        EmbeddedPostgres pg = start(port, dataDir);
        // Callers fail within 2 s while the database is down instead of queueing.
        HikariDataSource ds = TestPools.pool(EmbeddedPostgresServer.jdbcUrl(port), EmbeddedPostgresServer.USER,
                "pg-outage", Duration.ofSeconds(2));
        try {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).build().createTableIfNotExists();
            Charges charges = new Charges(ds);
            IdempotencyEngine engine = IdempotencyEngine.builder().store(store).lease(LEASE)
                    .ttl(Duration.ofHours(1)).build();
            String scope = "outage-" + UUID.randomUUID();
            IdempotencyKey before = IdempotencyKey.of(scope, "charge", "before");
            IdempotencyKey during = IdempotencyKey.of(scope, "charge", "during");
            IdempotencyKey cutOff = IdempotencyKey.of(scope, "charge", "cut-off");
            Map<IdempotencyKey, AtomicInteger> runs = new ConcurrentHashMap<>();

            Result<Charge> first = charge(engine, store, before, runs, () -> { });
            assertThat(first.replayed()).isFalse();

            // The database dies while a worker is inside its transaction.
            CountDownLatch inWork = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);
            CompletableFuture<Result<Charge>> cut = CompletableFuture.supplyAsync(() ->
                    charge(engine, store, cutOff, runs, () -> {
                        inWork.countDown();
                        await(resume);
                    }));
            assertThat(inWork.await(30, TimeUnit.SECONDS)).isTrue();
            pg.close();
            resume.countDown();
            assertThatThrownBy(() -> cut.get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(StoreUnavailableException.class);

            // While it is down: typed, retryable failures and the work never starts.
            for (IdempotencyKey k : new IdempotencyKey[] {before, during}) {
                assertThatThrownBy(() -> charge(engine, store, k, runs, () -> { }))
                        .isInstanceOfSatisfying(StoreUnavailableException.class,
                                e -> assertThat(e.retryable()).isTrue());
            }
            assertThatThrownBy(() -> store.find(before)).isInstanceOf(StoreUnavailableException.class);
            assertThat(runs.get(before)).hasValue(1);
            assertThat(runs.get(during)).isNull();

            pg = start(port, dataDir);

            // The pool reconnects on its own; the first calls may still fail while it does.
            Result<Charge> replay = onceReachable(() -> charge(engine, store, before, runs, () -> { }));
            assertThat(replay.replayed()).isTrue();
            assertThat(replay.value()).isEqualTo(first.value());
            assertThat(charge(engine, store, during, runs, () -> { }).replayed()).isFalse();
            // The cut-off claim survived the restart; once its lease lapses it is taken over.
            Thread.sleep(LEASE.plusMillis(200).toMillis());
            Result<Charge> retried = charge(engine, store, cutOff, runs, () -> { });
            assertThat(retried.replayed()).isFalse();
            assertThat(retried.attempt()).isEqualTo(2);

            assertThat(runs.get(before)).hasValue(1);
            assertThat(runs.get(during)).hasValue(1);
            assertThat(runs.get(cutOff)).hasValue(2);
            assertThat(charges.count(before)).isEqualTo(1);
            assertThat(charges.count(during)).isEqualTo(1);
            assertThat(charges.count(cutOff)).isEqualTo(1);
        } finally {
            ds.close();
            pg.close();
            TempDirs.delete(dataDir);
        }
    }

    private static Result<Charge> charge(IdempotencyEngine engine, JdbcIdempotencyStore store, IdempotencyKey key,
            Map<IdempotencyKey, AtomicInteger> runs, Runnable midWork) {
        return engine.executeAtomically(key, Map.of("amount", 10), Charge.class, CallOptions.defaults(),
                (ctx, completion) -> store.inTransaction(ctx.key(), ctx.fencingToken(), completion.ttl(),
                        completion::encode, h -> {
                            runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                            Charge c = Charges.insert(h, ctx.key(), 10, "w");
                            midWork.run();
                            return c;
                        }));
    }

    private static <T> T onceReachable(java.util.function.Supplier<T> call) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return call.get();
            } catch (StoreUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private static EmbeddedPostgres start(int port, Path dataDir) throws IOException {
        return EmbeddedPostgres.builder().setPort(port).setDataDirectory(dataDir).setCleanDataDirectory(false)
                .start();
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
