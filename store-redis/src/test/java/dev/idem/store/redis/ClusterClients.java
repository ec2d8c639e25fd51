package dev.idem.store.redis;

import redis.clients.jedis.UnifiedJedis;

/** Two Jedis clients on the shared three-master cluster, made once per JVM. */
final class ClusterClients {
    static final UnifiedJedis A = EmbeddedRedis.clusterClient(EmbeddedRedis.clusterPorts());
    static final UnifiedJedis B = EmbeddedRedis.clusterClient(EmbeddedRedis.clusterPorts());

    private ClusterClients() {
    }
}
