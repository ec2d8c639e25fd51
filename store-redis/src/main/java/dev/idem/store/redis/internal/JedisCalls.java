package dev.idem.store.redis.internal;

import dev.idem.api.StoreUnavailableException;
import dev.idem.store.redis.RedisScript;
import dev.idem.store.redis.RedisScriptClient.Waited;
import dev.idem.store.redis.ScriptNotLoadedException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * The Jedis part of the client adapters: a script call on a {@link UnifiedJedis} (any Jedis
 * client from 6.0 on: {@code RedisClient}, {@code RedisClusterClient}, {@code JedisPooled},
 * {@code JedisCluster}) or on one {@link Jedis} connection, its reply in the shape the stores
 * read, and its failure as a store error. Only methods present with the same signature in Jedis
 * 6.0 to 8.0 are linked directly; {@code UnifiedJedis.pipelined()}, whose return type changed
 * after 6.0, is found at run time.
 */
public final class JedisCalls {
    private static final MethodHandle PIPELINED = pipelinedHandle();

    private JedisCalls() {
    }

    private static MethodHandle pipelinedHandle() {
        try {
            return MethodHandles.publicLookup().unreflect(UnifiedJedis.class.getMethod("pipelined"))
                    .asType(MethodType.methodType(AbstractPipeline.class, UnifiedJedis.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * {@code EVALSHA} or {@code EVAL} on {@code client}, a {@link UnifiedJedis} or a {@link Jedis}.
     *
     * @param client the client
     * @param script the script
     * @param sendSource whether to send the source
     * @param key the key
     * @param args the arguments
     * @return the completed stage
     */
    public static CompletionStage<@Nullable Object> eval(Object client, RedisScript script, boolean sendSource,
            byte[] key, List<byte[]> args) {
        List<byte[]> keys = List.of(key);
        try {
            Object reply;
            if (client instanceof UnifiedJedis) {
                UnifiedJedis j = (UnifiedJedis) client;
                reply = sendSource ? j.eval(script.source(), keys, args) : j.evalsha(script.sha(), keys, args);
            } else {
                Jedis j = (Jedis) client;
                reply = sendSource ? j.eval(script.source(), keys, args) : j.evalsha(script.sha(), keys, args);
            }
            return CompletableFuture.completedStage(RespValues.normalize(reply));
        } catch (RuntimeException e) {
            return CompletableFuture.failedStage(translate(script, e));
        }
    }

    /**
     * The script and {@code WAIT} in one pipeline on one connection of {@code client}.
     *
     * @param client a {@link UnifiedJedis} or a {@link Jedis}
     * @param script the script
     * @param sendSource whether to send the source
     * @param key the key
     * @param args the arguments
     * @param replicas for {@code WAIT}
     * @param timeoutMillis for {@code WAIT}
     * @return the completed stage
     */
    public static CompletionStage<Waited> evalThenWait(Object client, RedisScript script, boolean sendSource,
            byte[] key, List<byte[]> args, int replicas, long timeoutMillis) {
        List<byte[]> keys = List.of(key);
        try {
            Response<Object> reply;
            Response<Long> acked;
            try (AbstractPipeline p = pipeline(client)) {
                reply = sendSource ? p.eval(script.source(), keys, args) : p.evalsha(script.sha(), keys, args);
                acked = p.waitReplicas(key, replicas, timeoutMillis);
                p.sync();
            }
            Object value = RespValues.normalize(reply.get());
            return CompletableFuture.completedStage(new Waited(value, ReplicatedRunner.acknowledged(acked.get())));
        } catch (RuntimeException e) {
            return CompletableFuture.failedStage(translate(script, e));
        }
    }

    private static AbstractPipeline pipeline(Object client) {
        if (client instanceof Jedis) {
            return ((Jedis) client).pipelined();
        }
        try {
            return (AbstractPipeline) PIPELINED.invokeExact((UnifiedJedis) client);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A Jedis failure as the store's: {@code NOSCRIPT} as {@link ScriptNotLoadedException}, and
     * whether a retry may help decided once for every Jedis version.
     *
     * @param script the script
     * @param e what Jedis threw
     * @return the store's exception
     */
    public static StoreUnavailableException translate(RedisScript script, RuntimeException e) {
        if (e instanceof StoreUnavailableException) {
            return (StoreUnavailableException) e;
        }
        if (e instanceof JedisNoScriptException) {
            return new ScriptNotLoadedException(script, e);
        }
        String message = String.valueOf(e.getMessage());
        if (e instanceof JedisAccessControlException || ServerErrors.accessDenied(message)
                || (e.getCause() != null && ServerErrors.accessDenied(e.getCause().getMessage()))) {
            return ServerErrors.failure(script, "access denied: " + message, e, false);
        }
        if (e instanceof JedisRedirectionException) {
            // Only a client that does not follow redirections lets one through.
            return ServerErrors.failure(script, message + " (a standalone client on a Redis Cluster node: use a cluster "
                    + "client)", e, false);
        }
        if (e instanceof JedisClusterOperationException || e instanceof JedisConnectionException) {
            return ServerErrors.failure(script, message, e, true);
        }
        if (e instanceof JedisDataException) {
            return ServerErrors.failure(script, message, e, ServerErrors.retryable(message, true));
        }
        if (e.getCause() instanceof IllegalStateException) {
            // The pool of a closed client ("Pool not open").
            return ServerErrors.closed(script, e.getCause());
        }
        if (e instanceof IllegalStateException) {
            return ServerErrors.closed(script, e);
        }
        // Pool exhaustion and other client-side conditions that pass.
        return ServerErrors.failure(script, message, e, e instanceof redis.clients.jedis.exceptions.JedisException);
    }
}
