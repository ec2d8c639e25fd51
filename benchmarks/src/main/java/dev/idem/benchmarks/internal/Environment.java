package dev.idem.benchmarks.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.DriverDataSource;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.benchmarks.Backend;
import dev.idem.store.dynamodb.DynamoDbIdempotencyStore;
import dev.idem.store.dynamodb.DynamoDbTables;
import dev.idem.store.jdbc.JdbcDialect;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;
import dev.idem.store.redis.jedis.JedisScriptClient;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A store and its raw baseline on one backend, sharing one client (pool, Jedis client or SDK
 * client), plus an optional round-trip counter. Closing it closes the clients; the servers
 * live until the JVM exits.
 */
public final class Environment implements AutoCloseable {
    /** Pool size of every client: enough for the 64-thread contention runs. */
    public static final int POOL_SIZE = 64;
    /**
     * System property: the JDBC store's query timeout in whole seconds (0 turns it off); unset
     * keeps the store's default. For attributing overhead: the raw baseline sets no timeout.
     */
    public static final String JDBC_QUERY_TIMEOUT_PROPERTY = "idem.bench.jdbc.queryTimeoutSeconds";

    private final IdempotencyStore store;
    private final RawBaseline raw;
    private final TripCounter trips;
    private final Deque<AutoCloseable> closers;

    private Environment(IdempotencyStore store, RawBaseline raw, TripCounter trips, Deque<AutoCloseable> closers) {
        this.store = store;
        this.raw = raw;
        this.trips = trips;
        this.closers = closers;
    }

    /** The idem store on the backend. */
    public IdempotencyStore store() {
        return store;
    }

    /** The raw baseline on the same client. */
    public RawBaseline raw() {
        return raw;
    }

    /** The round-trip counter, or null if the environment was opened without one. */
    public TripCounter trips() {
        return trips;
    }

    /**
     * The store of {@code backend} over its non-blocking client: DynamoDB over a
     * {@code DynamoDbAsyncClient} (Netty, {@link #POOL_SIZE} connections). No raw baseline.
     *
     * @param backend DYNAMODB
     * @return the environment
     */
    public static Environment openNonBlocking(Backend backend) {
        Deque<AutoCloseable> closers = new ArrayDeque<>();
        try {
            if (backend == Backend.REDIS) {
                // Lettuce: one connection, pipelined; the store's non-blocking form runs its scripts on it.
                int port = Servers.acquireRedis();
                closers.push(Servers::releaseRedis);
                io.lettuce.core.RedisClient lettuce = io.lettuce.core.RedisClient.create(io.lettuce.core.RedisURI
                        .builder().withHost(Servers.HOST).withPort(port).withTimeout(Duration.ofSeconds(60)).build());
                closers.push(lettuce::shutdown);
                return new Environment(RedisIdempotencyStore.create(LettuceScriptClient.of(lettuce)), null, null,
                        closers);
            }
            if (backend != Backend.DYNAMODB) {
                throw new IllegalArgumentException("no non-blocking client for " + backend);
            }
            var endpoint = Servers.acquireDynamoDb();
            closers.push(Servers::releaseDynamoDb);
            DynamoDbAsyncClient client = DynamoDbAsyncClient.builder()
                    .endpointOverride(endpoint)
                    .region(Region.US_EAST_1)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                    .httpClientBuilder(NettyNioAsyncHttpClient.builder().maxConcurrency(POOL_SIZE)
                            .connectionTimeout(Duration.ofSeconds(5)).readTimeout(Duration.ofSeconds(60)))
                    .build();
            closers.push(client);
            String table = "idem-nb-" + UUID.randomUUID().toString().substring(0, 8);
            DynamoDbClient admin = DynamoDbClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                    .httpClientBuilder(Apache5HttpClient.builder()).build();
            closers.push(admin);
            createTable(admin, table);
            IdempotencyStore store = DynamoDbIdempotencyStore.builder().asyncClient(client).tableName(table)
                    .maxCallsInFlight(POOL_SIZE).build();
            return new Environment(store, null, null, closers);
        } catch (RuntimeException | Error e) {
            new Environment(null, null, null, closers).close();
            throw e;
        }
    }

    /**
     * Starts (once per JVM) the backend's server and opens a store and a raw baseline on it.
     *
     * @param countTrips whether to count round trips (adds a little overhead: only for counting runs)
     */
    public static Environment open(Backend backend, Duration lease, Duration ttl, boolean countTrips) {
        Deque<AutoCloseable> closers = new ArrayDeque<>();
        try {
            return open(backend, lease.toMillis(), ttl.toMillis(), countTrips, closers);
        } catch (RuntimeException e) {
            // Half-opened: give back the clients and the server uses taken so far.
            new Environment(null, null, null, closers).close();
            throw e;
        }
    }

    private static Environment open(Backend backend, long leaseMs, long ttlMs, boolean countTrips,
            Deque<AutoCloseable> closers) {
        switch (backend) {
            case MEMORY: {
                IdempotencyStore store = MemoryIdempotencyStore.create();
                CountingStore counted = countTrips ? new CountingStore(store) : null;
                return new Environment(counted != null ? counted : store, new MemoryRaw(leaseMs, ttlMs), counted,
                        closers);
            }
            case REDIS: {
                int port = Servers.acquireRedis();
                closers.push(Servers::releaseRedis);
                ConnectionPoolConfig pool = new ConnectionPoolConfig();
                pool.setMaxTotal(POOL_SIZE);
                pool.setMaxIdle(POOL_SIZE);
                RedisClient client = RedisClient.builder().hostAndPort(Servers.HOST, port)
                        .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis(2000)
                                .socketTimeoutMillis(10_000).build())
                        .poolConfig(pool)
                        .build();
                closers.push(client);
                RedisMonitor monitor = null;
                if (countTrips) {
                    monitor = new RedisMonitor(Servers.HOST, port);
                    closers.push(monitor);
                }
                return new Environment(RedisIdempotencyStore.create(JedisScriptClient.of(client)),
                        new RedisRaw(client, leaseMs, ttlMs),
                        monitor, closers);
            }
            case REDIS_CLUSTER: {
                List<Integer> ports = Servers.acquireRedisCluster();
                closers.push(Servers::releaseRedisCluster);
                ConnectionPoolConfig pool = new ConnectionPoolConfig();
                pool.setMaxTotal(POOL_SIZE);
                pool.setMaxIdle(POOL_SIZE);
                Set<HostAndPort> nodes = new LinkedHashSet<>();
                ports.forEach(port -> nodes.add(new HostAndPort(Servers.HOST, port)));
                RedisClusterClient client = RedisClusterClient.builder().nodes(nodes)
                        .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis(2000)
                                .socketTimeoutMillis(10_000).build())
                        .poolConfig(pool)
                        .build();
                closers.push(client);
                // Commands are counted on every master: a MONITOR connection per node.
                RedisMonitor[] monitors = countTrips ? new RedisMonitor[ports.size()] : null;
                for (int i = 0; countTrips && i < ports.size(); i++) {
                    monitors[i] = new RedisMonitor(Servers.HOST, ports.get(i));
                    closers.push(monitors[i]);
                }
                TripCounter trips = monitors == null ? null : () -> {
                    long sum = 0;
                    for (RedisMonitor m : monitors) {
                        sum += m.total();
                    }
                    return sum;
                };
                return new Environment(RedisIdempotencyStore.create(JedisScriptClient.of(client)),
                        new RedisRaw(client, leaseMs, ttlMs),
                        trips, closers);
            }
            case DYNAMODB: {
                AtomicLong sent = new AtomicLong();
                var endpoint = Servers.acquireDynamoDb();
                closers.push(Servers::releaseDynamoDb);
                var builder = DynamoDbClient.builder()
                        .endpointOverride(endpoint)
                        .region(Region.US_EAST_1)
                        .credentialsProvider(StaticCredentialsProvider.create(
                                AwsBasicCredentials.create("local", "local")))
                        .httpClientBuilder(Apache5HttpClient.builder().maxConnections(POOL_SIZE)
                                .connectionTimeout(Duration.ofSeconds(5)).socketTimeout(Duration.ofSeconds(30)));
                if (countTrips) {
                    // Sees every HTTP attempt, SDK retries included.
                    builder.overrideConfiguration(c -> c.addExecutionInterceptor(new ExecutionInterceptor() {
                        @Override
                        public void beforeTransmission(Context.BeforeTransmission context,
                                ExecutionAttributes attributes) {
                            sent.incrementAndGet();
                        }
                    }));
                }
                DynamoDbClient client = builder.build();
                closers.push(client);
                String suffix = UUID.randomUUID().toString().substring(0, 8);
                String table = "idem-" + suffix;
                createTable(client, table);
                IdempotencyStore store = DynamoDbIdempotencyStore.builder().client(client).tableName(table).build();
                RawBaseline raw = new DynamoDbRaw(client, "raw-" + suffix, leaseMs, ttlMs);
                long before = sent.get();
                return new Environment(store, raw, countTrips ? () -> sent.get() - before : null, closers);
            }
            case H2:
            case POSTGRES:
            case MARIADB: {
                JdbcDialect dialect = backend == Backend.POSTGRES ? JdbcDialect.POSTGRESQL
                        : backend == Backend.MARIADB ? JdbcDialect.MYSQL : JdbcDialect.H2;
                String url;
                if (backend == Backend.POSTGRES) {
                    url = Servers.acquirePostgres();
                    closers.push(Servers::releasePostgres);
                } else if (backend == Backend.MARIADB) {
                    url = Servers.acquireMariaDb();
                    closers.push(Servers::releaseMariaDb);
                } else {
                    // DB_CLOSE_DELAY=-1 keeps it while the pool is between connections; the name
                    // is unique, so environments never share tables.
                    url = "jdbc:h2:mem:idem-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
                }
                String user = backend == Backend.POSTGRES ? "postgres" : backend == Backend.MARIADB ? "root" : "sa";
                DataSource physical = new DriverDataSource(url, null, new Properties(), user, "");
                CountingDataSource counted = countTrips ? new CountingDataSource(physical) : null;
                HikariConfig c = new HikariConfig();
                c.setDataSource(counted != null ? counted : physical);
                c.setPoolName("bench-" + backend.name().toLowerCase(java.util.Locale.ROOT));
                c.setMaximumPoolSize(POOL_SIZE);
                c.setMinimumIdle(1);
                c.setConnectionTimeout(5_000);
                HikariDataSource pool = new HikariDataSource(c);
                closers.push(pool);
                JdbcIdempotencyStore.Builder storeBuilder = JdbcIdempotencyStore.builder(pool).dialect(dialect);
                String timeout = System.getProperty(JDBC_QUERY_TIMEOUT_PROPERTY);
                if (timeout != null) {
                    storeBuilder.queryTimeout(Duration.ofSeconds(Long.parseLong(timeout.trim())));
                }
                JdbcIdempotencyStore store = storeBuilder.build().createTableIfNotExists();
                JdbcIdempotencyStore.builder(pool).dialect(dialect).tableName("idem_raw").build()
                        .createTableIfNotExists();
                RawBaseline raw = new JdbcRaw(Jdbi.create(pool), dialect, "idem_raw", leaseMs, ttlMs);
                return new Environment(store, raw, counted, closers);
            }
            default:
                throw new IllegalArgumentException("unknown backend " + backend);
        }
    }

    /**
     * System property: enable TTL on the benchmark's DynamoDB table ({@code true}), as
     * {@link DynamoDbTables#createTable} does. Off by default: DynamoDB Local runs TTL as a
     * background job in this JVM that scans the whole table over and over (pages of 20
     * items), so with TTL on, the store's table (and only it: the raw table has no TTL)
     * costs a growing share of both cores and of the allocation counted per call. On the
     * service, TTL deletion costs the client nothing.
     */
    public static final String DYNAMODB_TTL_PROPERTY = "idem.bench.dynamodb.ttl";

    private static void createTable(DynamoDbClient client, String table) {
        if (Boolean.getBoolean(DYNAMODB_TTL_PROPERTY)) {
            DynamoDbTables.createTable(client, table);
            return;
        }
        client.createTable(DynamoDbTables.createTableRequest(table));
        client.waiter().waitUntilTableExists(b -> b.tableName(table));
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
