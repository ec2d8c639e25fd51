package dev.idem.quarkus.runtime;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import dev.idem.quarkus.IdemConfig;
import dev.idem.store.redis.RedisIdempotencyStore;
import dev.idem.store.redis.RedisStoreProvider;
import dev.idem.store.redis.jedis.JedisScriptClient;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis store over the application's Redis. idem's Redis store runs on Jedis, and Quarkus's
 * own Redis client is Vert.x-based, so "the application's Redis" is, in order: its Jedis
 * {@code UnifiedJedis} bean (used as it is, never closed by idem); else the server named by
 * {@code idem.store.redis.uri} or {@code idem.store.redis.cluster}; else the one its Quarkus Redis
 * client is configured for ({@code quarkus.redis.hosts}, with {@code quarkus.redis.client-type}).
 * In the last two cases idem opens a Jedis pool of its own to that server, read as the Redis
 * store's {@link RedisStoreProvider} reads its properties, and closes it at shutdown. Wired by the
 * extension when idem-store-redis is present; not for applications.
 */
@Singleton
public class RedisStoreCandidate implements StoreCandidate {
    private final Instance<UnifiedJedis> clients;
    private final Config config;

    /**
     * Created by CDI.
     *
     * @param clients the application's Jedis clients, if any
     * @param config the application's configuration
     */
    @Inject
    public RedisStoreCandidate(Instance<UnifiedJedis> clients, Config config) {
        this.clients = clients;
        this.config = config;
    }

    /**
     * The Redis store provider's properties for the application's server: its
     * {@code idem.store.redis.*}, else the server {@code quarkus.redis.hosts} names (the first
     * host, or every host as cluster seeds with {@code quarkus.redis.client-type=cluster}).
     *
     * @param config the application's configuration
     * @param prefix the key prefix, unless set
     * @return the properties, or empty when no server is named
     */
    static Map<String, String> properties(Config config, String prefix) {
        Map<String, String> properties = new HashMap<>();
        for (String name : config.getPropertyNames()) {
            if (name.startsWith("idem.store.redis.")) {
                config.getOptionalValue(name, String.class).ifPresent(v -> properties.put(name, v));
            }
        }
        if (!properties.containsKey(RedisStoreProvider.URI) && !properties.containsKey(RedisStoreProvider.CLUSTER)) {
            Optional<List<String>> hosts = config.getOptionalValues("quarkus.redis.hosts", String.class);
            if (hosts.isEmpty() || hosts.get().isEmpty()) {
                return Map.of();
            }
            String type = config.getOptionalValue("quarkus.redis.client-type", String.class).orElse("standalone");
            if (type.strip().toLowerCase(Locale.ROOT).equals("cluster")) {
                properties.put(RedisStoreProvider.CLUSTER, String.join(",", hosts.get().stream()
                        .map(h -> java.net.URI.create(h.strip())).map(u -> u.getHost() + ":" + u.getPort()).toList()));
            } else {
                properties.put(RedisStoreProvider.URI, hosts.get().get(0).strip());
            }
        }
        properties.putIfAbsent(RedisStoreProvider.PREFIX, prefix);
        return Map.copyOf(properties);
    }

    @Override
    public IdemConfig.StoreKind kind() {
        return IdemConfig.StoreKind.REDIS;
    }

    @Override
    public Optional<IdempotencyStore> create(IdemConfig idem) {
        IdemConfig.Redis p = idem.store().redis();
        if (clients.isResolvable()) {
            RedisIdempotencyStore.Builder b = RedisIdempotencyStore.builder(JedisScriptClient.of(clients.get())).keyPrefix(p.prefix());
            p.maxOutcomeBytes().ifPresent(b::maxOutcomeBytes);
            return Optional.of(b.build());
        }
        Map<String, String> all = properties(config, p.prefix());
        if (all.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new RedisStoreProvider().create(new StoreProvider.Context() {
            @Override
            public Clock clock() {
                return Clock.systemUTC();
            }

            @Override
            public Map<String, String> properties() {
                return all;
            }

            @Override
            public Optional<String> property(String name) {
                return Optional.ofNullable(all.get(name));
            }
        }));
    }
}
