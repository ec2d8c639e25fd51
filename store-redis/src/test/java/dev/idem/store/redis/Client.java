package dev.idem.store.redis;

import dev.idem.store.redis.jedis.JedisScriptClient;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The client libraries the suites run the stores through, each on the shared standalone server
 * or three-master cluster; {@code which} picks one of two separate clients (two "processes").
 * The shared clients are made once per JVM; the adapters are new on every call and never close
 * them.
 */
enum Client {
    JEDIS {
        @Override
        RedisScriptClient standalone(int which) {
            return JedisScriptClient.of(which == 0 ? StandaloneClients.A : StandaloneClients.B);
        }

        @Override
        RedisScriptClient cluster(int which) {
            return JedisScriptClient.of(which == 0 ? ClusterClients.A : ClusterClients.B);
        }

        @Override
        RedisScriptClient ownClient(int port) {
            return JedisScriptClient.owning(EmbeddedRedis.client(port));
        }
    },
    LETTUCE {
        @Override
        RedisScriptClient standalone(int which) {
            return LettuceScriptClient.of(which == 0 ? LettuceClients.Standalone.A : LettuceClients.Standalone.B);
        }

        @Override
        RedisScriptClient cluster(int which) {
            return LettuceScriptClient.of(which == 0 ? LettuceClients.Cluster.A : LettuceClients.Cluster.B);
        }

        @Override
        RedisScriptClient ownClient(int port) {
            return LettuceScriptClient.owning(LettuceClients.client(port));
        }
    };

    abstract RedisScriptClient standalone(int which);

    abstract RedisScriptClient cluster(int which);

    /** A new client for the server on {@code port}, closed with the returned adapter. */
    abstract RedisScriptClient ownClient(int port);

    RedisScriptClient on(boolean cluster, int which) {
        return cluster ? cluster(which) : standalone(which);
    }

    /**
     * The libraries this run tests: all, or those the system property {@code idem.test.clients}
     * names (the pom's runs on other Jedis and Lettuce versions test one library each).
     */
    static Stream<Client> underTest() {
        String only = System.getProperty("idem.test.clients", "").trim();
        return Arrays.stream(values())
                .filter(c -> only.isEmpty() || Arrays.asList(only.toUpperCase(Locale.ROOT).split(",")).contains(c.name()));
    }

    /** {@link #underTest()}, each on a standalone server and on the cluster. */
    static Stream<Arguments> underTestOnBothTopologies() {
        return underTest().flatMap(c -> Stream.of(Arguments.of(c, false), Arguments.of(c, true)));
    }
}
