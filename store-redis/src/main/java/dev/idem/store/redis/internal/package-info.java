/** Implementation details of the Redis store (scripts, key layout, reply parsing, client calls); not an API. */
@NullMarked
package dev.idem.store.redis.internal;

import org.jspecify.annotations.NullMarked;
