package dev.idem.store.redis;

import redis.clients.jedis.UnifiedJedis;

/** Two Jedis clients on the shared standalone server, made once per JVM. */
final class StandaloneClients {
    static final UnifiedJedis A = EmbeddedRedis.client(EmbeddedRedis.standalonePort());
    static final UnifiedJedis B = EmbeddedRedis.client(EmbeddedRedis.standalonePort());

    private StandaloneClients() {
    }
}
