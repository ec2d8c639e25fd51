package dev.idem.store.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Lettuce clients for the tests, with a short command timeout (so a dead server shows up as an
 * error within seconds) and one set of I/O threads for all of them. The shared connections use
 * the String codec an application typically has: the adapter must send binary arguments through
 * any codec.
 */
final class LettuceClients {
    static final Duration TIMEOUT = Duration.ofSeconds(2);
    static final ClientResources RESOURCES = DefaultClientResources.builder().ioThreadPoolSize(2)
            .computationThreadPoolSize(2).build();

    private LettuceClients() {
    }

    static RedisURI uri(int port) {
        return RedisURI.builder().withHost(EmbeddedRedis.HOST).withPort(port).withTimeout(TIMEOUT).build();
    }

    static RedisClient client(int port) {
        return RedisClient.create(RESOURCES, uri(port));
    }

    static RedisClusterClient clusterClient(List<Integer> ports) {
        return RedisClusterClient.create(RESOURCES,
                ports.stream().map(LettuceClients::uri).collect(Collectors.toList()));
    }

    /** Two connections on the shared standalone server, made once per JVM. */
    static final class Standalone {
        static final RedisClient CLIENT = client(EmbeddedRedis.standalonePort());
        static final StatefulRedisConnection<String, String> A = CLIENT.connect(StringCodec.UTF8);
        static final StatefulRedisConnection<String, String> B = CLIENT.connect(StringCodec.UTF8);

        private Standalone() {
        }
    }

    /** Two connections on the shared three-master cluster, made once per JVM. */
    static final class Cluster {
        static final RedisClusterClient CLIENT = clusterClient(EmbeddedRedis.clusterPorts());
        static final StatefulRedisClusterConnection<String, String> A = CLIENT.connect(StringCodec.UTF8);
        static final StatefulRedisClusterConnection<String, String> B = CLIENT.connect(StringCodec.UTF8);

        private Cluster() {
        }
    }
}
