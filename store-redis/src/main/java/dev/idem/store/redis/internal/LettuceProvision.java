package dev.idem.store.redis.internal;

import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Lettuce clients for the provider, each owned (shut down) by its script client. */
final class LettuceProvision {
    private LettuceProvision() {
    }

    static RedisScriptClient standalone(URI uri, int timeout) {
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(Duration.ofMillis(timeout));
        RedisClient client = RedisClient.create(redisUri);
        client.setOptions(ClientOptions.builder().socketOptions(socket(timeout)).build());
        return LettuceScriptClient.owning(client);
    }

    static RedisScriptClient cluster(List<URI> seeds, int timeout) {
        List<RedisURI> uris = new ArrayList<>();
        for (URI seed : seeds) {
            RedisURI u = RedisURI.create(seed);
            u.setTimeout(Duration.ofMillis(timeout));
            uris.add(u);
        }
        RedisClusterClient client = RedisClusterClient.create(uris);
        client.setOptions(ClusterClientOptions.builder().socketOptions(socket(timeout)).build());
        return LettuceScriptClient.owning(client);
    }

    private static SocketOptions socket(int timeout) {
        return SocketOptions.builder().connectTimeout(Duration.ofMillis(timeout)).build();
    }
}
