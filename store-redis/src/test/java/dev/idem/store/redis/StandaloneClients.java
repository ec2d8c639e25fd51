package dev.idem.store.redis;

import redis.clients.jedis.RedisClient;

/** Two clients on the shared standalone server, made once per JVM. */
final class StandaloneClients {
    static final RedisClient A = EmbeddedRedis.client(EmbeddedRedis.standalonePort());
    static final RedisClient B = EmbeddedRedis.client(EmbeddedRedis.standalonePort());

    private StandaloneClients() {
    }
}
