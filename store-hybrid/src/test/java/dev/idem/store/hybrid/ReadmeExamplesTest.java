package dev.idem.store.hybrid;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/**
 * The README's examples, run as printed (readme-tests checks the README against these regions)
 * on embedded PostgreSQL and the shared embedded Redis.
 */
@Timeout(120)
class ReadmeExamplesTest {
    record Charge(String id, int amount) {
    }

    /** The caller's table, written in the transaction that completes the record. */
    static final class Charges {
        final AtomicInteger inserts = new AtomicInteger();

        Charge insert(Handle handle, Map<String, Integer> request) {
            Charge charge = new Charge("ch_" + UUID.randomUUID(), request.get("amount"));
            handle.createUpdate("INSERT INTO readme_hybrid_charge (id, amount) VALUES (:id, :a)")
                    .bind("id", charge.id()).bind("a", charge.amount()).execute();
            inserts.incrementAndGet();
            return charge;
        }
    }

    /** Stands in for a Micrometer MeterRegistry. */
    static final class Registry {
        final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        Counter counter(String name, String tag, String value) {
            AtomicInteger n = counts.computeIfAbsent(name + "," + tag + "=" + value, k -> new AtomicInteger());
            return n::incrementAndGet;
        }
    }

    interface Counter {
        void increment();
    }

    private final DataSource dataSource = Databases.POSTGRES.dataSource();
    private final String redisHost = GateRedis.HOST;
    private final int redisPort = GateRedis.Shared.PORT;
    private final Registry registry = new Registry();
    private final Charges charges = new Charges();
    private final IdempotencyKey key = IdempotencyKey.of("readme-" + UUID.randomUUID(), "POST /charges", "k-1");
    private final Map<String, Integer> request = Map.of("amount", 10);

    @Test
    void setupAndTransactionalMode() {
        Jdbi.create(dataSource).useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS readme_hybrid_charge"
                + " (id VARCHAR(64) PRIMARY KEY, amount INT NOT NULL)"));
        // tag::setup[]
        JdbcIdempotencyStore truth = JdbcIdempotencyStore.builder(dataSource).build();
        RedisClient redis = RedisClient.builder().hostAndPort(redisHost, redisPort)   // e.g. "redis.internal", 6379
                .clientConfig(DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(200).socketTimeoutMillis(200)   // a slow gate costs at most this
                        .build())
                .build();

        HybridIdempotencyStore store = HybridIdempotencyStore.builder(JedisScriptClient.of(redis), truth)
                .listener(e -> registry.counter("idem.hybrid", "event", e.type().name()).increment())
                .build();
        // Lettuce: builder(LettuceScriptClient.of(lettuceClient), truth), with a short command timeout;
        // Spring Data Redis: builder(SpringDataRedisScriptClient.of(connectionFactory), truth)

        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        // end::setup[]
        try (redis) {
            Result<Charge> first = transactional(engine, store);
            Result<Charge> replay = transactional(engine, store);

            assertThat(replay.value()).isEqualTo(first.value());
            assertThat(charges.inserts).hasValue(1);
            int rows = Jdbi.create(dataSource).withHandle(h -> h.createQuery(
                    "SELECT COUNT(*) FROM readme_hybrid_charge WHERE id = :id").bind("id", first.value().id())
                    .mapTo(Integer.class).one());
            assertThat(rows).isEqualTo(1);
            assertThat(registry.counts).isNotEmpty();
        }
    }

    private Result<Charge> transactional(IdempotencyEngine engine, HybridIdempotencyStore store) {
        // tag::transactional[]
        Result<Charge> charge = engine.executeAtomically(key, request, Charge.class, CallOptions.defaults(),
                (ctx, completion) -> store.inTransaction(ctx.key(), ctx.fencingToken(), completion.ttl(),
                        completion::encode, handle -> charges.insert(handle, request)));
        // end::transactional[]
        return charge;
    }
}
