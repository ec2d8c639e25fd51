package dev.idem.store.redis;

import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import dev.idem.store.redis.internal.ProvidedClients;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * ServiceLoader entry (name {@code redis}): builds a Redis store, and the client it runs
 * on, from properties, for engines built without an explicit store. Exactly one of these
 * must be set:
 * <ul>
 *   <li>{@value #URI}: a standalone server, e.g. {@code redis://host:6379/0} or
 *       {@code rediss://user:pass@host:6380};</li>
 *   <li>{@value #CLUSTER}: comma-separated {@code host:port} seed nodes of a cluster.</li>
 * </ul>
 * Optional: {@value #PREFIX} (the key prefix), {@value #TIMEOUT} (connect and command timeout,
 * a duration such as {@code 2s}, default {@value #DEFAULT_TIMEOUT_MS} ms),
 * {@value #MAX_OUTCOME_BYTES} and {@value #CLIENT} ({@code jedis} or {@code lettuce}; by default
 * Jedis if it is on the class path, else Lettuce). Leases stay on the Redis server's clock: the
 * engine's clock is never handed to the store. The store owns the client it created and closes
 * it on {@link IdempotencyStore#close()}. Applications that already have a client should pass it
 * to {@link RedisIdempotencyStore#builder} through their client's {@link RedisScriptClient} instead.
 */
public final class RedisStoreProvider implements StoreProvider {
    /** Property naming a standalone server URI. */
    public static final String URI = "idem.store.redis.uri";
    /** Property naming cluster seed nodes. */
    public static final String CLUSTER = "idem.store.redis.cluster";
    /** Property for the key prefix. */
    public static final String PREFIX = "idem.store.redis.prefix";
    /** Property for the connect and socket timeout, a duration ({@code 500ms}, {@code 2s}, {@code PT2S}). */
    public static final String TIMEOUT = "idem.store.redis.timeout";
    /** Property for the largest outcome or step journal, in bytes. */
    public static final String MAX_OUTCOME_BYTES = "idem.store.redis.max-outcome-bytes";
    /** Property choosing the client library, {@code jedis} or {@code lettuce}, when both are on the class path. */
    public static final String CLIENT = "idem.store.redis.client";
    /** The timeout used when {@value #TIMEOUT} is not set, in milliseconds. */
    public static final int DEFAULT_TIMEOUT_MS = 2000;

    /** Public no-argument constructor for ServiceLoader. */
    public RedisStoreProvider() {
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public IdempotencyStore create(Context context) {
        Optional<String> uri = context.property(URI).map(String::trim).filter(s -> !s.isEmpty());
        Optional<String> cluster = context.property(CLUSTER).map(String::trim).filter(s -> !s.isEmpty());
        if (uri.isPresent() == cluster.isPresent()) {
            throw new IllegalStateException("the redis store needs exactly one of the properties " + URI
                    + " (a standalone server, e.g. redis://localhost:6379) or " + CLUSTER
                    + " (comma-separated host:port seed nodes)" + (uri.isPresent() ? ", not both" : ""));
        }
        int timeout = context.duration(TIMEOUT).map(RedisStoreProvider::timeoutMillis)
                .orElse(DEFAULT_TIMEOUT_MS);
        int maxOutcome = context.property(MAX_OUTCOME_BYTES).map(RedisStoreProvider::maxOutcome)
                .orElse(RedisIdempotencyStore.DEFAULT_MAX_OUTCOME_BYTES);
        // Validate every setting before a client (with its pool) exists, so a bad one leaks nothing.
        String prefix = context.property(PREFIX).map(RedisStoreProvider::prefix)
                .orElse(RedisIdempotencyStore.DEFAULT_KEY_PREFIX);
        String library = context.property(CLIENT).map(v -> v.trim().toLowerCase(Locale.ROOT)).filter(v -> !v.isEmpty())
                .orElseGet(RedisStoreProvider::libraryOnClassPath);
        if (!library.equals("jedis") && !library.equals("lettuce")) {
            throw new IllegalStateException(CLIENT + " must be jedis or lettuce but was '" + library + "'");
        }
        if (!ProvidedClients.present(library)) {
            throw new IllegalStateException(CLIENT + " is " + library + " but " + ProvidedClients.artifact(library)
                    + " is not on the class path");
        }
        URI standalone = uri.map(RedisStoreProvider::standalone).orElse(null);
        List<URI> seeds = cluster.map(RedisStoreProvider::cluster).orElse(null);
        RedisScriptClient client;
        try {
            client = standalone != null ? ProvidedClients.standalone(library, standalone, timeout)
                    : ProvidedClients.cluster(library, seeds, timeout);
        } catch (RuntimeException e) {
            throw new StoreUnavailableException("cannot connect the redis store: " + e.getMessage(), e, true);
        }
        return RedisIdempotencyStore.builder(client).keyPrefix(prefix).maxOutcomeBytes(maxOutcome).build();
    }

    private static String libraryOnClassPath() {
        if (ProvidedClients.present("jedis")) {
            return "jedis";
        }
        if (ProvidedClients.present("lettuce")) {
            return "lettuce";
        }
        throw new IllegalStateException("the redis store needs a Redis client on the class path: add "
                + ProvidedClients.artifact("jedis") + " or " + ProvidedClients.artifact("lettuce"));
    }

    private static int timeoutMillis(java.time.Duration d) {
        if (d.toMillis() < 1 || d.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalStateException(TIMEOUT + " must be between 1 ms and " + Integer.MAX_VALUE + " ms but was "
                    + d);
        }
        return (int) d.toMillis();
    }

    private static int maxOutcome(String value) {
        int n;
        try {
            n = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            n = 0;
        }
        if (n < 1 || n > RedisIdempotencyStore.MAX_OUTCOME_BYTES_LIMIT) {
            throw new IllegalStateException(MAX_OUTCOME_BYTES + " must be 1.." + RedisIdempotencyStore.MAX_OUTCOME_BYTES_LIMIT
                    + " bytes but was '" + value + "'");
        }
        return n;
    }

    private static String prefix(String value) {
        try {
            return RedisKeyLayout.checkPrefix(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(PREFIX + ": " + e.getMessage(), e);
        }
    }

    private static URI standalone(String value) {
        URI uri;
        try {
            uri = java.net.URI.create(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(URI + " is not a URI: '" + value + "'", e);
        }
        if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme())) {
            throw new IllegalStateException(URI + " must start with redis:// or rediss:// but was '" + value + "'");
        }
        if (uri.getHost() == null) {
            throw new IllegalStateException(URI + " has no host: '" + value + "'");
        }
        String path = uri.getPath() == null ? "" : uri.getPath();
        String db = path.startsWith("/") ? path.substring(1) : path;
        if (!db.isEmpty() && !db.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalStateException(URI + " has a database that is not a number: '" + value + "'");
        }
        return uri;
    }

    private static List<URI> cluster(String value) {
        List<URI> nodes = new ArrayList<>();
        for (String part : value.split(",")) {
            String p = part.trim();
            int colon = p.lastIndexOf(':');
            if (colon <= 0 || colon == p.length() - 1) {
                throw new IllegalStateException(CLUSTER + " must list host:port pairs but has '" + p + "'");
            }
            int port;
            try {
                port = Integer.parseInt(p.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalStateException(CLUSTER + " has a port that is not a number: '" + p + "'", e);
            }
            nodes.add(java.net.URI.create("redis://" + p.substring(0, colon) + ":" + port));
        }
        return nodes;
    }
}
