/**
 * The Spring Data Redis adapter of the Redis stores:
 * {@link dev.idem.store.redis.spring.SpringDataRedisScriptClient} over the application's
 * {@code RedisConnectionFactory}, Lettuce or Jedis underneath. Spring Data Redis is an optional
 * dependency of idem-store-redis.
 */
@NullMarked
package dev.idem.store.redis.spring;

import org.jspecify.annotations.NullMarked;
