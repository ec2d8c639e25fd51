package dev.idem.store.redis.lettuce;

import dev.idem.store.redis.RedisScript;
import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.internal.LettuceCalls;
import dev.idem.store.redis.internal.ServerErrors;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RedisScriptClient} over Lettuce, standalone or Redis Cluster, through Lettuce's
 * asynchronous API: a call holds no thread while Redis answers (a blocking store operation
 * waits for the reply on its own thread; stages complete on Lettuce's I/O threads). Lettuce 6.x
 * and 7.x are supported (see the module README for the versions tested), RESP2 or RESP3.
 *
 * <p>Given a {@link RedisClient} or {@link RedisClusterClient}, the adapter opens one connection
 * of its own at its first call (a blocking connect), shares it between all calls, and closes it
 * when closed; the client is shut down with it only if passed to {@code owning}. Given a
 * connection the application owns (any codec), the adapter uses it and never closes it. Set the
 * client's command timeout (the {@code RedisURI} timeout, {@code spring.data.redis.timeout}): it
 * bounds every call, also while Lettuce queues commands during a reconnect. With
 * {@code waitForReplicas}, a pending {@code WAIT} holds back the calls behind it on the shared
 * connection.
 *
 * <p>Lettuce re-sends a command whose connection dropped before its reply (its default
 * at-least-once mode); every script of the stores answers a repeated run as it answered the
 * first, so a landed write is never applied as a second, different one.
 */
public final class LettuceScriptClient implements RedisScriptClient {
    private final Supplier<StatefulConnection<?, ?>> opener;
    private final boolean cluster;
    private final boolean ownsConnection;
    private final @Nullable AbstractRedisClient ownedClient;
    private final String description;
    private final Object lock = new Object();
    private volatile @Nullable StatefulConnection<?, ?> connection;
    private volatile boolean closed;

    private LettuceScriptClient(Supplier<StatefulConnection<?, ?>> opener, boolean cluster, boolean ownsConnection,
            @Nullable AbstractRedisClient ownedClient, String description) {
        this.opener = opener;
        this.cluster = cluster;
        this.ownsConnection = ownsConnection;
        this.ownedClient = ownedClient;
        this.description = description;
    }

    /**
     * An adapter with its own connection from {@code client}, which it never shuts down.
     *
     * @param client a standalone (or Sentinel) client with a default URI
     * @return the adapter
     */
    public static LettuceScriptClient of(RedisClient client) {
        return standalone(client, null);
    }

    /**
     * An adapter with its own connection from {@code client}, which it never shuts down.
     *
     * @param client a cluster client
     * @return the adapter
     */
    public static LettuceScriptClient of(RedisClusterClient client) {
        return cluster(client, null);
    }

    /**
     * An adapter on a connection the application owns and closes; any codec.
     *
     * @param connection the connection
     * @return the adapter
     */
    public static LettuceScriptClient of(StatefulRedisConnection<?, ?> connection) {
        Objects.requireNonNull(connection, "connection");
        return new LettuceScriptClient(() -> connection, false, false, null, "Lettuce connection");
    }

    /**
     * An adapter on a cluster connection the application owns and closes; any codec.
     *
     * @param connection the connection
     * @return the adapter
     */
    public static LettuceScriptClient of(StatefulRedisClusterConnection<?, ?> connection) {
        Objects.requireNonNull(connection, "connection");
        return new LettuceScriptClient(() -> connection, true, false, null, "Lettuce cluster connection");
    }

    /**
     * An adapter that owns {@code client}: closing it (or the store built on it) shuts the client
     * down. For a client made only for the store.
     *
     * @param client a standalone client with a default URI
     * @return the adapter
     */
    public static LettuceScriptClient owning(RedisClient client) {
        return standalone(client, client);
    }

    /**
     * An adapter that owns {@code client}: closing it (or the store built on it) shuts the client
     * down.
     *
     * @param client a cluster client
     * @return the adapter
     */
    public static LettuceScriptClient owning(RedisClusterClient client) {
        return cluster(client, client);
    }

    private static LettuceScriptClient standalone(RedisClient client, @Nullable AbstractRedisClient owned) {
        Objects.requireNonNull(client, "client");
        return new LettuceScriptClient(() -> client.connect(ByteArrayCodec.INSTANCE), false, true, owned,
                "Lettuce RedisClient");
    }

    private static LettuceScriptClient cluster(RedisClusterClient client, @Nullable AbstractRedisClient owned) {
        Objects.requireNonNull(client, "client");
        return new LettuceScriptClient(() -> client.connect(ByteArrayCodec.INSTANCE), true, true, owned,
                "Lettuce RedisClusterClient");
    }

    @Override
    public CompletionStage<@Nullable Object> eval(RedisScript script, boolean sendSource, byte[] key,
            List<byte[]> args) {
        StatefulConnection<?, ?> c;
        try {
            c = connection(script);
        } catch (RuntimeException e) {
            return CompletableFuture.failedStage(LettuceCalls.translate(script, e, cluster));
        }
        return LettuceCalls.eval(c, cluster, script, sendSource, key, args);
    }

    @Override
    public CompletionStage<Waited> evalThenWait(RedisScript script, boolean sendSource, byte[] key, List<byte[]> args,
            int replicas, long timeoutMillis) {
        StatefulConnection<?, ?> c;
        try {
            c = connection(script);
        } catch (RuntimeException e) {
            return CompletableFuture.failedStage(LettuceCalls.translate(script, e, cluster));
        }
        return LettuceCalls.evalThenWait(c, cluster, script, sendSource, key, args, replicas, timeoutMillis);
    }

    /**
     * True: a call dispatches its command and returns; its stage completes on Lettuce's I/O
     * thread. (The first call of an adapter given a client opens its connection, blocking.)
     *
     * @return true
     */
    @Override
    public boolean nonBlocking() {
        return true;
    }

    private StatefulConnection<?, ?> connection(RedisScript script) {
        StatefulConnection<?, ?> c = connection;
        if (c != null && !closed) {
            return c;
        }
        synchronized (lock) {
            if (closed) {
                throw ServerErrors.closed(script, null);
            }
            if (connection == null) {
                // A failed connect is thrown to this call; the next call tries again.
                connection = opener.get();
            }
            return connection;
        }
    }

    /** Closes the connection this adapter opened (and the client it owns); later calls fail. */
    @Override
    public void close() {
        StatefulConnection<?, ?> c;
        synchronized (lock) {
            closed = true;
            c = connection;
        }
        if (c != null && ownsConnection) {
            c.close();
        }
        if (ownedClient != null) {
            ownedClient.shutdown();
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
