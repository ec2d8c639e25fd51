/**
 * The hybrid store: Redis as a fast gate in front of the JDBC store, which stays the ground
 * truth. Start with
 * {@link dev.idem.store.hybrid.HybridIdempotencyStore#builder(redis.clients.jedis.UnifiedJedis,
 * dev.idem.store.jdbc.JdbcIdempotencyStore)}.
 */
@NullMarked
package dev.idem.store.hybrid;

import org.jspecify.annotations.NullMarked;
