package dev.idem.store.redis.jedis;

import dev.idem.store.redis.RedisScript;
import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.internal.JedisCalls;
import dev.idem.store.redis.internal.ServerErrors;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.UnifiedJedis;

/**
 * The {@link RedisScriptClient} over a Jedis client: any {@link UnifiedJedis}, so
 * {@code RedisClient} and {@code RedisClusterClient} (Jedis 7.2 and later, 8.x), and
 * {@code JedisPooled} and {@code JedisCluster} (up to 7.x), standalone or Redis Cluster, on
 * RESP2 or RESP3 (Jedis 8's default). Jedis 6.0 to 8.0 are supported (see the module README for
 * the versions tested).
 *
 * <p>Jedis is blocking: each call runs on the caller's thread and returns a completed stage.
 * Set short connect and socket timeouts on the client; they bound every call. A client passed to
 * {@link #of} is never closed; one passed to {@link #owning} is closed with this adapter.
 */
public final class JedisScriptClient implements RedisScriptClient {
    private final UnifiedJedis jedis;
    private final boolean owns;
    private volatile boolean closed;

    private JedisScriptClient(UnifiedJedis jedis, boolean owns) {
        this.jedis = Objects.requireNonNull(jedis, "jedis");
        this.owns = owns;
    }

    /**
     * An adapter over the application's client, which it never closes.
     *
     * @param jedis a standalone or cluster client
     * @return the adapter
     */
    public static JedisScriptClient of(UnifiedJedis jedis) {
        return new JedisScriptClient(jedis, false);
    }

    /**
     * An adapter that owns {@code jedis}: closing the adapter (or the store built on it) closes
     * the client. For a client made only for the store.
     *
     * @param jedis a standalone or cluster client
     * @return the adapter
     */
    public static JedisScriptClient owning(UnifiedJedis jedis) {
        return new JedisScriptClient(jedis, true);
    }

    @Override
    public CompletionStage<@Nullable Object> eval(RedisScript script, boolean sendSource, byte[] key,
            List<byte[]> args) {
        if (closed) {
            return CompletableFuture.failedStage(ServerErrors.closed(script, null));
        }
        return JedisCalls.eval(jedis, script, sendSource, key, args);
    }

    @Override
    public CompletionStage<Waited> evalThenWait(RedisScript script, boolean sendSource, byte[] key, List<byte[]> args,
            int replicas, long timeoutMillis) {
        if (closed) {
            return CompletableFuture.failedStage(ServerErrors.closed(script, null));
        }
        return JedisCalls.evalThenWait(jedis, script, sendSource, key, args, replicas, timeoutMillis);
    }

    /** Closes the client only if this adapter owns it ({@link #owning}); later calls fail either way. */
    @Override
    public void close() {
        closed = true;
        if (owns) {
            jedis.close();
        }
    }

    @Override
    public String toString() {
        return "Jedis " + jedis.getClass().getSimpleName();
    }
}
