package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** store-jdbc's README examples, run as printed on in-process H2. */
@Timeout(60)
class StoreJdbcReadmeTest {
    record ChargeRequest(String customer, long amountCents) {
    }

    record Receipt(String id) {
    }

    private static String h2Url() {
        return "jdbc:h2:mem:store-jdbc-readme-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    @Test
    void schemaAndTable() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(h2Url());
        Jdbi.create(dataSource).useHandle(h -> h.execute("create schema billing"));
        // tag::create-table[]
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource)
                .schema("billing")               // optional; the MySQL database or PostgreSQL/H2 schema
                .tableName("idem_record")        // default
                .build()
                .createTableIfNotExists();
        // end::create-table[]
        assertThat(store.tableName()).isEqualTo("billing.idem_record");
    }

    @Test
    void pooledDataSource() {
        String jdbcUrl = h2Url();
        IdempotencyKey key = IdempotencyKey.inScope("c").operation("charge").key("p-1");
        ChargeRequest request = new ChargeRequest("c", 10);
        // tag::pool[]
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(jdbcUrl);
        // PostgreSQL: jdbc:postgresql://db:5432/app?connectTimeout=2&socketTimeout=10
        // MariaDB/MySQL: jdbc:mariadb://db:3306/app?connectTimeout=2000&socketTimeout=10000
        pool.setConnectionTimeout(2_000);   // fail fast while the database is unreachable
        DataSource dataSource = new HikariDataSource(pool);

        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource)
                .queryTimeout(Duration.ofSeconds(5))   // default 10 s; bounds a statement stuck behind a lock
                .build();

        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(store)
                .lease(Duration.ofSeconds(30))
                .ttl(Duration.ofHours(24))
                .build();
        // end::pool[]
        store.createTableIfNotExists();
        Result<Receipt> r = engine.execute(key, request, Receipt.class, ctx -> new Receipt("r1"));
        assertThat(engine.execute(key, request, Receipt.class, ctx -> new Receipt("r2")).value())
                .isEqualTo(r.value());
        ((HikariDataSource) dataSource).close();
    }

    @Test
    void transactional() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(h2Url());
        Jdbi.create(dataSource).useHandle(h -> h.execute(
                "create table charges (id varchar(64) primary key, customer varchar(64), amount_cents bigint)"));
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build().createTableIfNotExists();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        IdempotencyKey key = IdempotencyKey.inScope("c").operation("charge").key("t-1");
        ChargeRequest request = new ChargeRequest("c", 10);
        // tag::transactional[]
        record Charge(String id, long amountCents) {}

        Result<Charge> result = engine.executeAtomically(key, request, Charge.class, store.transactional(handle -> {
            String id = UUID.randomUUID().toString();
            handle.createUpdate("INSERT INTO charges (id, customer, amount_cents) VALUES (:id, :c, :a)")
                    .bind("id", id).bind("c", request.customer()).bind("a", request.amountCents())
                    .execute();
            return new Charge(id, request.amountCents());
        }));
        // or, for the value alone: Charge charge = engine.callAtomically(key, request, Charge.class, store.transactional(...));
        // end::transactional[]
        assertThat(result.stored()).isTrue();
        int rows = Jdbi.create(dataSource).withHandle(h -> h.createQuery("select count(*) from charges")
                .mapTo(Integer.class).one());
        assertThat(rows).isEqualTo(1);
    }

    @Test
    void purge() throws Exception {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(h2Url());
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build().createTableIfNotExists();
        // tag::purge[]
        ScheduledExecutorService purger = Executors.newSingleThreadScheduledExecutor();
        purger.scheduleWithFixedDelay(() -> {
            try {
                int n;
                do {
                    n = store.purgeExpired(1_000);
                } while (n == 1_000);          // drain a backlog in bounded batches
            } catch (StoreUnavailableException e) {
                // database away: try again at the next tick
            }
        }, 1, 1, TimeUnit.MINUTES);
        // end::purge[]
        purger.shutdownNow();
        assertThat(purger.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(store.purgeExpired(1_000)).isZero();
    }
}
