package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.store.jdbc.internal.Sql;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Leases are judged by the database clock: a node whose JVM clock runs minutes ahead cannot steal one. */
@Timeout(60)
class ServerClockTest {
    private static final Duration LEASE = Duration.ofSeconds(20);
    private static final Duration SKEW = Duration.ofMinutes(10);

    private final String scope = "clock-" + UUID.randomUUID();

    @ParameterizedTest
    @EnumSource(Backend.class)
    void leaseDeadlineIsTheDatabaseClockPlusTheLease(Backend backend) {
        JdbcIdempotencyStore store = backend.store();
        long dbBefore = databaseMillis(backend);
        ClaimResult claim = store.claim(IdempotencyKey.of(scope, "op", "k"), new byte[] {1}, 7L, LEASE,
                Duration.ofHours(1));
        long dbAfter = databaseMillis(backend);

        assertThat(claim.storeTime().toEpochMilli()).isBetween(dbBefore, dbAfter);
        assertThat(claim.record().leaseExpiresAt()).isEqualTo(claim.storeTime().plus(LEASE));
        assertThat(store.capabilities().serverClock()).isTrue();
    }

    /**
     * The control for the next test: a store that did judge leases by a JVM clock ten minutes
     * ahead takes a live lease over, so the next test fails if the skewed node's clock reaches
     * its store.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aStoreJudgingByAJvmClockTenMinutesAheadWouldTakeOverALiveLease(Backend backend) {
        IdempotencyKey key = IdempotencyKey.of(scope, "pay", "control");
        assertThat(backend.store().claim(key, new byte[] {1}, 1L, LEASE, Duration.ofHours(1)).claimed()).isTrue();
        JdbcIdempotencyStore onSkewedClock = JdbcIdempotencyStore.builder(backend.otherDataSource())
                .clock(Clock.offset(Clock.systemUTC(), SKEW)).build();
        assertThat(onSkewedClock.claim(key, new byte[] {1}, 2L, LEASE, Duration.ofHours(1)).status())
                .isEqualTo(ClaimResult.Status.TAKEN_OVER);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void engineWithAJvmClockTenMinutesAheadCannotTakeOverALiveLease(Backend backend) throws Exception {
        JdbcIdempotencyStore honestStore = backend.store();
        // Everything the application side computes runs ten minutes ahead: far past the lease.
        // Its store comes from the provider, as for an engine built without one, so the
        // skewed clock is offered to the store (StoreProvider.Context.clock()) as well as
        // used by the engine; only a store that ignores it for leases passes.
        Clock skewedClock = Clock.offset(Clock.systemUTC(), SKEW);
        IdempotencyStore skewedStore = new JdbcStoreProvider().create(new StoreProvider.Context() {
            @Override
            public Clock clock() {
                return skewedClock;
            }

            @Override
            public Map<String, String> properties() {
                return Map.of(JdbcStoreProvider.URL, backend.url(), "idem.store.jdbc.user", backend.user());
            }
        });
        IdempotencyEngine honest = IdempotencyEngine.builder().store(honestStore).lease(LEASE)
                .ttl(Duration.ofHours(1)).build();
        IdempotencyEngine skewed = IdempotencyEngine.builder().store(skewedStore)
                .clock(skewedClock).lease(LEASE).ttl(Duration.ofHours(1)).build();
        IdempotencyKey key = IdempotencyKey.of(scope, "pay", "k");
        Map<String, Object> request = Map.of("amount", 10);
        CountDownLatch inWork = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        Work<String> work = ctx -> {
            runs.incrementAndGet();
            inWork.countDown();
            if (!finish.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not released");
            }
            return "paid";
        };

        CompletableFuture<Result<String>> holder = CompletableFuture.supplyAsync(
                () -> honest.execute(key, request, String.class, work));
        assertThat(inWork.await(30, TimeUnit.SECONDS)).isTrue();

        assertThatThrownBy(() -> skewed.execute(key, request, String.class, work))
                .isInstanceOf(RequestInProgressException.class);
        ClaimResult direct = skewedStore.claim(key, honestStore.find(key).orElseThrow().fingerprint(), 99L, LEASE,
                Duration.ofHours(1));
        assertThat(direct.claimed()).isFalse();
        assertThat(direct.record().leaseExpiresAt()).isAfter(direct.storeTime());

        finish.countDown();
        assertThat(holder.get(30, TimeUnit.SECONDS).value()).isEqualTo("paid");
        assertThat(runs).hasValue(1);
        Result<String> replay = skewed.execute(key, request, String.class, work);
        assertThat(replay.replayed()).isTrue();
        assertThat(runs).hasValue(1);
    }

    private static long databaseMillis(Backend backend) {
        Sql sql = new Sql(backend.dialect, "unused");
        return Jdbi.create(backend.dataSource())
                .withHandle(h -> h.createQuery("SELECT " + sql.serverNow).mapTo(Long.class).one());
    }
}
