package dev.idem.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.engine.Result;
import dev.idem.spring.Idempotent;
import dev.idem.spring.SpringTransactionalIdempotency;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.testsupport.postgres.EmbeddedPostgresServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The JDBC transactional mode inside Spring-managed transactions, on a real PostgreSQL: the
 * business row and the completion commit together, and a stale worker's row rolls back.
 * Leases are judged by a mutable clock given to the store, so a takeover needs no sleeping.
 */
class TransactionalModeTest {
    private static EmbeddedPostgres pg;
    private static ExecutorService pool;
    private final MutableClock clock = new MutableClock();
    private final AtomicInteger tables = new AtomicInteger();

    @BeforeAll
    static void startDatabase() throws IOException {
        pg = EmbeddedPostgresServer.start();
        pool = Executors.newFixedThreadPool(2);
    }

    @AfterAll
    static void stopDatabase() throws IOException {
        pool.shutdownNow();
        pg.close();
    }

    private ApplicationContextRunner runner() {
        DataSource ds = pg.getPostgresDatabase();
        String table = "idem_tx_" + System.nanoTime();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).tableName(table).clock(clock).build();
        store.createTableIfNotExists();
        JdbcTemplate jdbc = new JdbcTemplate(ds);
        jdbc.execute("create table if not exists charge (id bigserial primary key, request_id text, worker text)");
        jdbc.execute("truncate charge");
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class,
                        AopAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class, JdbcTemplateAutoConfiguration.class))
                .withBean(DataSource.class, () -> ds)
                .withBean(IdempotencyStore.class, () -> store)
                .withBean(PaymentService.class)
                .withPropertyValues("idem.purge.enabled=false", "idem.lease=30s", "idem.aop.default-scope=default");
    }

    private static int rows(JdbcTemplate jdbc, String worker) {
        return jdbc.queryForObject("select count(*) from charge where worker = ?", Integer.class, worker);
    }

    @Test
    void theBusinessRowAndTheCompletionCommitTogether() {
        runner().run(ctx -> {
            SpringTransactionalIdempotency tx = ctx.getBean(SpringTransactionalIdempotency.class);
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            IdempotencyKey key = IdempotencyKey.of("shop", "charge", "c-1");
            Result<String> first = tx.execute(key, "{\"amount\":1}", String.class, c -> {
                jdbc.update("insert into charge(request_id, worker) values ('c-1', 'one')");
                return "ch-1";
            });
            Result<String> again = tx.execute(key, "{\"amount\":1}", String.class, c -> {
                jdbc.update("insert into charge(request_id, worker) values ('c-1', 'two')");
                return "ch-2";
            });
            assertThat(first.replayed()).isFalse();
            assertThat(again.replayed()).isTrue();
            assertThat(again.value()).isEqualTo("ch-1");
            assertThat(rows(jdbc, "one")).isEqualTo(1);
            assertThat(rows(jdbc, "two")).isZero();

            // A failing work rolls its row back and frees the key for the retry.
            IdempotencyKey failing = IdempotencyKey.of("shop", "charge", "c-2");
            assertThatThrownBy(() -> tx.execute(failing, "{}", String.class, c -> {
                jdbc.update("insert into charge(request_id, worker) values ('c-2', 'failed')");
                throw new IllegalStateException("gateway down");
            })).hasMessage("gateway down");
            assertThat(rows(jdbc, "failed")).isZero();
            assertThat(tx.execute(failing, "{}", String.class, c -> "ok").attempt()).isEqualTo(2);
        });
    }

    @Test
    void aTakeoverMidWorkRollsTheStaleWorkersRowBack() {
        runner().run(ctx -> {
            SpringTransactionalIdempotency tx = ctx.getBean(SpringTransactionalIdempotency.class);
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            IdempotencyStore store = ctx.getBean(IdempotencyStore.class);
            IdempotencyKey key = IdempotencyKey.of("shop", "charge", "slow-1");
            CountDownLatch wrote = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);

            Future<Result<String>> stale = pool.submit(() -> tx.execute(key, "{}", String.class, c -> {
                jdbc.update("insert into charge(request_id, worker) values ('slow-1', 'stale')");
                wrote.countDown();
                if (!resume.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never resumed");
                }
                return "stale";
            }));
            assertThat(wrote.await(30, TimeUnit.SECONDS)).isTrue();
            // The stale worker's lease lapses while its transaction is still open.
            clock.advance(Duration.ofSeconds(31));
            Result<String> taker = tx.execute(key, "{}", String.class, c -> {
                jdbc.update("insert into charge(request_id, worker) values ('slow-1', 'taker')");
                return "taker";
            });
            assertThat(taker.attempt()).isEqualTo(2);
            resume.countDown();

            assertThatThrownBy(() -> stale.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(LeaseLostException.class);
            assertThat(rows(jdbc, "stale")).isZero();
            assertThat(rows(jdbc, "taker")).isEqualTo(1);
            assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
            assertThat(tx.execute(key, "{}", String.class, c -> "again").value()).isEqualTo("taker");
        });
    }

    @Test
    void anOuterTransactionIsJoinedAndItsRollbackLeavesTheKeyForTheNextRetry() {
        runner().run(ctx -> {
            PaymentService service = ctx.getBean(PaymentService.class);
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            IdempotencyStore store = ctx.getBean(IdempotencyStore.class);
            TransactionTemplate outer = new TransactionTemplate(
                    ctx.getBean(org.springframework.transaction.PlatformTransactionManager.class));

            outer.executeWithoutResult(status -> {
                service.pay(new PaymentService.Payment("p-1", 700));
                status.setRollbackOnly();
            });
            assertThat(rows(jdbc, "aop")).isZero();
            IdempotencyKey key = IdempotencyKey.of("default", "pay", "p-1");
            assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);

            clock.advance(Duration.ofSeconds(31));
            assertThat(service.pay(new PaymentService.Payment("p-1", 700))).isEqualTo("paid p-1");
            assertThat(service.pay(new PaymentService.Payment("p-1", 700))).isEqualTo("paid p-1");
            assertThat(rows(jdbc, "aop")).isEqualTo(1);
            assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        });
    }

    /** A service whose method writes through JdbcTemplate in the transactional mode. */
    public static class PaymentService {
        private final JdbcTemplate jdbc;

        /**
         * Creates the service.
         *
         * @param jdbc the template over the shared DataSource
         */
        public PaymentService(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        /**
         * Pays once per payment id.
         *
         * @param payment the payment
         * @return a message
         */
        @Idempotent(operation = "pay", key = "#payment.id", transactional = true)
        public String pay(Payment payment) {
            jdbc.update("insert into charge(request_id, worker) values (?, 'aop')", payment.id());
            return "paid " + payment.id();
        }

        /** A payment request. */
        public record Payment(String id, long cents) {
        }
    }
}
