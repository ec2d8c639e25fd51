package dev.idem.benchmarks.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.DriverDataSource;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.hybrid.HybridIdempotencyStore;
import dev.idem.store.jdbc.JdbcDialect;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Properties;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;

/**
 * One of the three stores the hybrid benchmarks compare, on the benchmark JVM's embedded
 * servers (redis-server 6.2, PostgreSQL 17), with the database statements and the Redis
 * commands counted apart when asked: the hybrid store (Redis gate, PostgreSQL truth), Redis
 * alone, PostgreSQL alone.
 */
public final class HybridEnvironment implements AutoCloseable {
    /** The stores compared. */
    public enum Kind {
        /** {@code HybridIdempotencyStore}: Redis in front of PostgreSQL. */
        HYBRID,
        /** {@code RedisIdempotencyStore} alone. */
        REDIS,
        /** {@code JdbcIdempotencyStore} on PostgreSQL alone. */
        POSTGRES
    }

    private static final TripCounter NONE = () -> 0;

    private final IdempotencyStore store;
    private final TripCounter statements;
    private final TripCounter redisCommands;
    private final Deque<AutoCloseable> closers;

    private HybridEnvironment(IdempotencyStore store, TripCounter statements, TripCounter redisCommands,
            Deque<AutoCloseable> closers) {
        this.store = store;
        this.statements = statements;
        this.redisCommands = redisCommands;
        this.closers = closers;
    }

    /**
     * Starts the servers the kind needs (once per JVM) and opens its store.
     *
     * @param kind which store
     * @param count whether to count statements and Redis commands (MONITOR: only for counting runs)
     * @return the environment
     */
    public static HybridEnvironment open(Kind kind, boolean count) {
        return open(kind, count, count);
    }

    /**
     * Starts the servers the kind needs (once per JVM) and opens its store.
     *
     * @param kind which store
     * @param countStatements whether to count database statements
     * @param countRedis whether to count Redis commands (MONITOR slows Redis: only for counting runs)
     * @return the environment
     */
    public static HybridEnvironment open(Kind kind, boolean countStatements, boolean countRedis) {
        Deque<AutoCloseable> closers = new ArrayDeque<>();
        try {
            RedisClient redis = null;
            TripCounter commands = NONE;
            if (kind != Kind.POSTGRES) {
                int port = Servers.acquireRedis();
                closers.push(Servers::releaseRedis);
                ConnectionPoolConfig pool = new ConnectionPoolConfig();
                pool.setMaxTotal(Environment.POOL_SIZE);
                pool.setMaxIdle(Environment.POOL_SIZE);
                redis = RedisClient.builder().hostAndPort(Servers.HOST, port)
                        .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis(2000)
                                .socketTimeoutMillis(10_000).build())
                        .poolConfig(pool).build();
                closers.push(redis);
                if (countRedis) {
                    RedisMonitor monitor = new RedisMonitor(Servers.HOST, port);
                    closers.push(monitor);
                    commands = monitor;
                }
            }
            if (kind == Kind.REDIS) {
                return new HybridEnvironment(RedisIdempotencyStore.create(JedisScriptClient.of(redis)), NONE, commands,
                        closers);
            }
            String url = Servers.acquirePostgres();
            closers.push(Servers::releasePostgres);
            CountingDataSource counted = new CountingDataSource(new DriverDataSource(url, null, new Properties(),
                    "postgres", ""));
            HikariConfig c = new HikariConfig();
            c.setDataSource(counted);
            c.setPoolName("bench-hybrid-" + kind.name().toLowerCase(java.util.Locale.ROOT));
            c.setMaximumPoolSize(Environment.POOL_SIZE);
            c.setMinimumIdle(1);
            c.setConnectionTimeout(5_000);
            HikariDataSource pool = new HikariDataSource(c);
            closers.push(pool);
            JdbcIdempotencyStore truth = JdbcIdempotencyStore.builder(pool).dialect(JdbcDialect.POSTGRESQL).build()
                    .createTableIfNotExists();
            IdempotencyStore store = kind == Kind.POSTGRES ? truth
                    : HybridIdempotencyStore.builder(JedisScriptClient.of(redis), truth).build();
            return new HybridEnvironment(store, countStatements ? counted : NONE, commands, closers);
        } catch (RuntimeException e) {
            new HybridEnvironment(null, NONE, NONE, closers).close();
            throw e;
        }
    }

    /**
     * The store.
     *
     * @return the store
     */
    public IdempotencyStore store() {
        return store;
    }

    /**
     * Database statements (executions, commits, rollbacks) so far; 0 unless counting.
     *
     * @return the count
     */
    public long statements() {
        return statements.total();
    }

    /**
     * Redis commands clients sent so far (commands inside scripts excluded); 0 unless counting.
     *
     * @return the count
     */
    public long redisCommands() {
        return redisCommands.total();
    }

    @Override
    public void close() {
        while (!closers.isEmpty()) {
            try {
                closers.pop().close();
            } catch (Exception e) {
                // Closing clients at the end of a run: nothing useful to do with a failure.
            }
        }
    }
}
