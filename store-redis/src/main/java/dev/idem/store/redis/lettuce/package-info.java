/**
 * The Lettuce adapter of the Redis stores: {@link dev.idem.store.redis.lettuce.LettuceScriptClient}
 * over a Lettuce client or connection (Lettuce 6.x and 7.x, standalone, Sentinel or cluster),
 * asynchronous inside. Lettuce is an optional dependency of idem-store-redis: the application
 * brings the version it uses.
 */
@NullMarked
package dev.idem.store.redis.lettuce;

import org.jspecify.annotations.NullMarked;
