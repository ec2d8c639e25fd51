/**
 * The Redis store: {@link dev.idem.store.redis.RedisIdempotencyStore} (standalone or Redis
 * Cluster), one atomic Lua script per operation, leases and expiry on the Redis server's clock,
 * over the client the application has through a {@link dev.idem.store.redis.RedisScriptClient}:
 * Jedis ({@code .jedis}), Lettuce ({@code .lettuce}) or Spring Data Redis ({@code .spring}). See
 * the module README for the record layout, the client versions supported and what a Redis
 * restart does to stored outcomes.
 */
@NullMarked
package dev.idem.store.redis;

import org.jspecify.annotations.NullMarked;
