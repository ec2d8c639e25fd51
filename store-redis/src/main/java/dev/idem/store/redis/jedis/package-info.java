/**
 * The Jedis adapter of the Redis stores: {@link dev.idem.store.redis.jedis.JedisScriptClient}
 * over any Jedis {@code UnifiedJedis} (Jedis 6.0 to 8.0, standalone or cluster). Jedis is an
 * optional dependency of idem-store-redis: the application brings the version it uses.
 */
@NullMarked
package dev.idem.store.redis.jedis;

import org.jspecify.annotations.NullMarked;
