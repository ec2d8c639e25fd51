package dev.idem.store.redis.internal;

import dev.idem.store.redis.RedisScriptClient;
import java.net.URI;
import java.util.List;

/**
 * Clients the ServiceLoader provider makes from properties, through whichever library the
 * application has; each library's code sits in its own class, so the other one is never loaded.
 */
public final class ProvidedClients {
    private ProvidedClients() {
    }

    /**
     * Whether a client library is on the class path.
     *
     * @param library {@code jedis} or {@code lettuce}
     * @return whether its classes load
     */
    public static boolean present(String library) {
        String probe = library.equals("jedis") ? "redis.clients.jedis.UnifiedJedis" : "io.lettuce.core.RedisClient";
        try {
            Class.forName(probe, false, ProvidedClients.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * The Maven coordinates of a client library, for messages.
     *
     * @param library {@code jedis} or {@code lettuce}
     * @return the group and artifact
     */
    public static String artifact(String library) {
        return library.equals("jedis") ? "redis.clients:jedis" : "io.lettuce:lettuce-core";
    }

    /**
     * A client for one server, owned by the returned script client.
     *
     * @param library {@code jedis} or {@code lettuce}
     * @param uri a validated {@code redis://} or {@code rediss://} URI
     * @param timeoutMillis the connect and command timeout
     * @return the script client
     */
    public static RedisScriptClient standalone(String library, URI uri, int timeoutMillis) {
        return library.equals("jedis") ? JedisProvision.standalone(uri, timeoutMillis)
                : LettuceProvision.standalone(uri, timeoutMillis);
    }

    /**
     * A cluster client from seed nodes, owned by the returned script client.
     *
     * @param library {@code jedis} or {@code lettuce}
     * @param seeds {@code redis://host:port} per seed
     * @param timeoutMillis the connect and command timeout
     * @return the script client
     */
    public static RedisScriptClient cluster(String library, List<URI> seeds, int timeoutMillis) {
        return library.equals("jedis") ? JedisProvision.cluster(seeds, timeoutMillis)
                : LettuceProvision.cluster(seeds, timeoutMillis);
    }
}
