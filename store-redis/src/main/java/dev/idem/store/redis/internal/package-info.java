/** Implementation details of the Redis store (scripts, key layout, reply parsing); not an API. */
package dev.idem.store.redis.internal;
