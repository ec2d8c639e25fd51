package dev.idem.store.redis;

import redis.clients.jedis.RedisClusterClient;

/** Two clients on the shared three-master cluster, made once per JVM. */
final class ClusterClients {
    static final RedisClusterClient A = EmbeddedRedis.clusterClient(EmbeddedRedis.clusterPorts());
    static final RedisClusterClient B = EmbeddedRedis.clusterClient(EmbeddedRedis.clusterPorts());

    private ClusterClients() {
    }
}
