/**
 * The Redis store: {@link dev.idem.store.redis.RedisIdempotencyStore} on a Jedis
 * {@code UnifiedJedis} client (standalone or Redis Cluster), one atomic Lua script per
 * operation, leases and expiry on the Redis server's clock. See the module README for the
 * record layout and for what a Redis restart does to stored outcomes.
 */
package dev.idem.store.redis;
