package dev.idem.store.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The few Redis calls idem's Redis store and the hybrid store's gate make, over one Redis
 * client library: a Lua script with one key, on the node that serves the key, optionally
 * followed by {@code WAIT} on the same connection. idem ships adapters for Jedis
 * ({@link dev.idem.store.redis.jedis.JedisScriptClient}), Lettuce
 * ({@link dev.idem.store.redis.lettuce.LettuceScriptClient}) and Spring Data Redis
 * ({@link dev.idem.store.redis.spring.SpringDataRedisScriptClient}); the scripts, the key
 * layout and the reading of replies are the stores' own and the same over every client.
 *
 * <p>Contract for an adapter:
 * <ul>
 *   <li>methods never throw: every outcome goes into the returned stage, which completes once,
 *       within the client's command timeout;</li>
 *   <li>a reply is given as RESP2 carries it, whichever protocol the connection speaks: an
 *       integer as {@link Long}, a bulk or status string as {@code byte[]}, nil as {@code null},
 *       an array as a {@link List} of these; a RESP3 boolean as RESP2 would carry the script's
 *       value ({@code true} as {@code 1L}, {@code false} as {@code null});</li>
 *   <li>{@code NOSCRIPT} fails the stage with {@link ScriptNotLoadedException}; every other
 *       failure (connection, timeout, server error, closed client) with a
 *       {@link dev.idem.api.StoreUnavailableException} that says whether a retry may help;</li>
 *   <li>{@link #close()} releases what the adapter opened itself (a connection), never a client
 *       or connection the application passed in.</li>
 * </ul>
 * A store closes its script client when it is closed; give each store its own. Adapters are
 * thread-safe.
 */
public interface RedisScriptClient extends AutoCloseable {

    /**
     * Runs {@code script} with one key: {@code EVALSHA}, or {@code EVAL} with the source when
     * {@code sendSource} is set.
     *
     * @param script the script
     * @param sendSource whether to send the source ({@code EVAL}) instead of the digest
     * @param key the one key, which picks the cluster node
     * @param args the arguments
     * @return the reply, as the class documentation describes
     */
    CompletionStage<@Nullable Object> eval(RedisScript script, boolean sendSource, byte[] key, List<byte[]> args);

    /**
     * Runs {@code script} like {@link #eval} and then {@code WAIT replicas timeoutMillis} on the
     * same connection, pipelined in the same round trip ({@code WAIT} covers the writes of its
     * own connection only, and scripts may not call it). The stage fails with the script's
     * failure when the script failed.
     *
     * @param script the script
     * @param sendSource whether to send the source instead of the digest
     * @param key the one key, which picks the cluster node
     * @param args the arguments
     * @param replicas how many replicas {@code WAIT} waits for
     * @param timeoutMillis how long {@code WAIT} waits, in milliseconds
     * @return the script's reply and the replicas that acknowledged it
     */
    CompletionStage<Waited> evalThenWait(RedisScript script, boolean sendSource, byte[] key, List<byte[]> args,
            int replicas, long timeoutMillis);

    /**
     * Runs {@code script} by its digest and, only if the node answers {@code NOSCRIPT}, once more
     * with its source (which also caches it on that node).
     *
     * @param script the script
     * @param key the one key
     * @param args the arguments
     * @return the reply
     */
    default CompletionStage<@Nullable Object> run(RedisScript script, byte[] key, List<byte[]> args) {
        return eval(script, false, key, args).exceptionallyCompose(
                e -> notLoaded(e) ? eval(script, true, key, args) : CompletableFuture.failedStage(e));
    }

    /**
     * {@link #evalThenWait}, by digest first and with the source only after {@code NOSCRIPT}.
     *
     * @param script the script
     * @param key the one key
     * @param args the arguments
     * @param replicas how many replicas {@code WAIT} waits for
     * @param timeoutMillis how long {@code WAIT} waits, in milliseconds
     * @return the script's reply and the replicas that acknowledged it
     */
    default CompletionStage<Waited> runThenWait(RedisScript script, byte[] key, List<byte[]> args, int replicas,
            long timeoutMillis) {
        return evalThenWait(script, false, key, args, replicas, timeoutMillis).exceptionallyCompose(
                e -> notLoaded(e) ? evalThenWait(script, true, key, args, replicas, timeoutMillis)
                        : CompletableFuture.failedStage(e));
    }

    /**
     * Whether the adapter's stages complete later, on the client's own I/O threads, without the
     * calling thread waiting for Redis (Lettuce). A store on such an adapter offers its
     * {@linkplain dev.idem.api.store.IdempotencyStore#nonBlocking() non-blocking form}. Defaults
     * to false: the stage has completed when it is returned (Jedis, Spring Data Redis).
     *
     * @return whether calls park no thread
     */
    default boolean nonBlocking() {
        return false;
    }

    /** Releases what the adapter opened itself; later calls fail with a non-retryable store error. */
    @Override
    void close();

    private static boolean notLoaded(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return t instanceof ScriptNotLoadedException;
    }

    /**
     * A script's reply and how many replicas acknowledged the writes before it.
     *
     * @param reply the script's reply
     * @param acknowledged the number {@code WAIT} returned
     */
    record Waited(@Nullable Object reply, long acknowledged) {
    }
}
