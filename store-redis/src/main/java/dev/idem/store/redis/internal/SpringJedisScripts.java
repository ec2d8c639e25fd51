package dev.idem.store.redis.internal;

import dev.idem.store.redis.RedisScript;
import dev.idem.store.redis.RedisScriptClient;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * The Jedis side of the Spring Data Redis adapter: each call borrows a connection from the
 * factory, runs on its native Jedis object ({@code Jedis}, {@code JedisCluster} or
 * {@code UnifiedJedis}, by Spring Data Redis version and mode) and gives it back.
 */
public final class SpringJedisScripts implements RedisScriptClient {
    private final JedisConnectionFactory factory;
    private volatile boolean closed;

    private SpringJedisScripts(JedisConnectionFactory factory) {
        this.factory = factory;
    }

    /**
     * The script client over a {@code JedisConnectionFactory}.
     *
     * @param factory the factory
     * @return the script client
     */
    public static RedisScriptClient of(RedisConnectionFactory factory) {
        return new SpringJedisScripts((JedisConnectionFactory) factory);
    }

    @Override
    public CompletionStage<@Nullable Object> eval(RedisScript script, boolean sendSource, byte[] key,
            List<byte[]> args) {
        return borrowed(script, jedis -> JedisCalls.eval(jedis, script, sendSource, key, args));
    }

    @Override
    public CompletionStage<Waited> evalThenWait(RedisScript script, boolean sendSource, byte[] key, List<byte[]> args,
            int replicas, long timeoutMillis) {
        return borrowed(script,
                jedis -> JedisCalls.evalThenWait(jedis, script, sendSource, key, args, replicas, timeoutMillis));
    }

    private <T> CompletionStage<T> borrowed(RedisScript script, Function<Object, CompletionStage<T>> call) {
        if (closed) {
            return CompletableFuture.failedStage(ServerErrors.closed(script, null));
        }
        RedisConnection connection;
        try {
            connection = factory.isRedisClusterAware() ? factory.getClusterConnection() : factory.getConnection();
        } catch (DataAccessResourceFailureException e) {
            return CompletableFuture.failedStage(ServerErrors.failure(script, String.valueOf(e.getMessage()), e, true));
        } catch (IllegalStateException e) {
            // A destroyed factory.
            return CompletableFuture.failedStage(ServerErrors.closed(script, e));
        } catch (RuntimeException e) {
            return CompletableFuture.failedStage(JedisCalls.translate(script, e));
        }
        try {
            return call.apply(connection.getNativeConnection());
        } finally {
            connection.close();
        }
    }

    /** Later calls fail; the factory is the application's and stays as it is. */
    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return "Jedis from " + factory.getClass().getSimpleName();
    }
}
