/**
 * The hybrid store: Redis as a fast gate in front of the JDBC store, which stays the ground
 * truth. Start with
 * {@link dev.idem.store.hybrid.HybridIdempotencyStore#builder(dev.idem.store.redis.RedisScriptClient,
 * dev.idem.store.jdbc.JdbcIdempotencyStore)}, the gate on Jedis, Lettuce or Spring Data Redis.
 */
@NullMarked
package dev.idem.store.hybrid;

import org.jspecify.annotations.NullMarked;
