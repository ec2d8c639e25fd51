package dev.idem.store.redis.internal;

import dev.idem.api.StoreUnavailableException;
import dev.idem.store.redis.RedisScript;
import dev.idem.store.redis.RedisScriptClient.Waited;
import dev.idem.store.redis.ScriptNotLoadedException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The Lettuce part of the client adapters: a script call dispatched on a connection of any codec
 * (arguments and reply go through the byte-array codec), asynchronously; on a cluster connection
 * it is routed by its key and follows redirections. Only Lettuce API present in 6.x and 7.x is
 * used. Stages complete on Lettuce's I/O threads.
 */
public final class LettuceCalls {
    private LettuceCalls() {
    }

    /**
     * {@code EVALSHA} or {@code EVAL} on {@code connection}.
     *
     * @param connection a standalone or cluster connection
     * @param cluster whether it is a cluster connection
     * @param script the script
     * @param sendSource whether to send the source
     * @param key the key
     * @param args the arguments
     * @return the reply
     */
    public static CompletionStage<@Nullable Object> eval(StatefulConnection<?, ?> connection, boolean cluster,
            RedisScript script, boolean sendSource, byte[] key, List<byte[]> args) {
        try {
            AsyncCommand<byte[], byte[], @Nullable Object> cmd = dispatch(connection, scriptCommand(script, sendSource,
                    key, args));
            return translated(connection, cmd, script, cluster);
        } catch (RuntimeException e) {
            return CompletableFuture.failedStage(translate(script, e, cluster));
        }
    }

    /**
     * The script and then {@code WAIT}, both on the connection to the key's node.
     *
     * @param connection a standalone or cluster connection
     * @param cluster whether it is a cluster connection
     * @param script the script
     * @param sendSource whether to send the source
     * @param key the key
     * @param args the arguments
     * @param replicas for {@code WAIT}
     * @param timeoutMillis for {@code WAIT}
     * @return the reply and the acknowledgements
     */
    public static CompletionStage<Waited> evalThenWait(StatefulConnection<?, ?> connection, boolean cluster,
            RedisScript script, boolean sendSource, byte[] key, List<byte[]> args, int replicas, long timeoutMillis) {
        CompletionStage<? extends StatefulConnection<?, ?>> node;
        try {
            node = cluster ? nodeOf((StatefulRedisClusterConnection<?, ?>) connection, key)
                    : CompletableFuture.completedStage(connection);
        } catch (RuntimeException e) {
            return CompletableFuture.failedStage(translate(script, e, cluster));
        }
        return node.exceptionallyCompose(e -> CompletableFuture.failedStage(translate(script, e, cluster)))
                .thenCompose(c -> {
                    try {
                        AsyncCommand<byte[], byte[], @Nullable Object> run = dispatch(c, scriptCommand(script,
                                sendSource, key, args));
                        CommandArgs<byte[], byte[]> waitArgs = new CommandArgs<>(ByteArrayCodec.INSTANCE)
                                .add(replicas).add(timeoutMillis);
                        AsyncCommand<byte[], byte[], @Nullable Object> wait = dispatch(c,
                                new Command<>(CommandType.WAIT, new LettuceReplyOutput(), waitArgs));
                        CompletionStage<@Nullable Object> reply = translated(c, run, script, cluster);
                        CompletionStage<@Nullable Object> acked = translated(c, wait, script, cluster);
                        return reply.thenCombine(acked, (r, a) -> new Waited(r, ReplicatedRunner.acknowledged(a)));
                    } catch (RuntimeException e) {
                        return CompletableFuture.failedStage(translate(script, e, cluster));
                    }
                });
    }

    private static CompletionStage<StatefulRedisConnection<?, ?>> nodeOf(StatefulRedisClusterConnection<?, ?> cluster,
            byte[] key) {
        int slot = SlotHash.getSlot(key);
        RedisClusterNode node = cluster.getPartitions().getPartitionBySlot(slot);
        if (node == null) {
            throw new RedisException("no cluster node serves slot " + slot);
        }
        return cluster.getConnectionAsync(node.getNodeId()).thenApply(c -> (StatefulRedisConnection<?, ?>) c);
    }

    private static Command<byte[], byte[], @Nullable Object> scriptCommand(RedisScript script, boolean sendSource,
            byte[] key, List<byte[]> args) {
        CommandArgs<byte[], byte[]> a = new CommandArgs<>(ByteArrayCodec.INSTANCE)
                .add(sendSource ? script.source() : script.sha()).add(1).addKey(key);
        for (byte[] arg : args) {
            a.addValue(arg);
        }
        return new Command<>(sendSource ? CommandType.EVAL : CommandType.EVALSHA, new LettuceReplyOutput(), a);
    }

    // The command carries its own codec, so a connection of any key and value types can send it.
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static AsyncCommand<byte[], byte[], @Nullable Object> dispatch(StatefulConnection<?, ?> connection,
            Command<byte[], byte[], @Nullable Object> command) {
        AsyncCommand<byte[], byte[], @Nullable Object> async = new AsyncCommand<>(command);
        ((StatefulConnection) connection).dispatch(async);
        return async;
    }

    // A connection whose client does not time commands out itself gets the bound here, so every
    // stage completes within the connection's timeout.
    private static CompletionStage<@Nullable Object> translated(StatefulConnection<?, ?> connection,
            CompletableFuture<@Nullable Object> cmd, RedisScript script, boolean cluster) {
        CompletableFuture<@Nullable Object> bounded = cmd;
        if (!connection.getOptions().getTimeoutOptions().isTimeoutCommands()) {
            Duration timeout = connection.getTimeout();
            bounded = cmd.orTimeout(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
        }
        return bounded.exceptionallyCompose(e -> CompletableFuture.failedStage(translate(script, e, cluster)));
    }

    /**
     * A Lettuce failure as the store's.
     *
     * @param script the script
     * @param failure what failed the command or the call
     * @param cluster whether the connection follows cluster redirections
     * @return the store's exception
     */
    public static StoreUnavailableException translate(RedisScript script, Throwable failure, boolean cluster) {
        Throwable e = Await.unwrap(failure);
        if (e instanceof StoreUnavailableException) {
            return (StoreUnavailableException) e;
        }
        String message = String.valueOf(e.getMessage());
        if (e instanceof RedisNoScriptException || message.startsWith("NOSCRIPT")) {
            return new ScriptNotLoadedException(script, e);
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (ServerErrors.accessDenied(t.getMessage())) {
                return ServerErrors.failure(script, "access denied: " + t.getMessage(), e, false);
            }
        }
        if (e instanceof RedisCommandTimeoutException || e instanceof TimeoutException) {
            return ServerErrors.failure(script, "no reply within the command timeout; the script may have run", e,
                    true);
        }
        if (e instanceof RedisCommandExecutionException) {
            String hint = !cluster && (message.startsWith("MOVED") || message.startsWith("ASK"))
                    ? " (a standalone connection to a Redis Cluster node: use RedisClusterClient)" : "";
            return ServerErrors.failure(script, message + hint, e, ServerErrors.retryable(message, cluster));
        }
        if (e instanceof RedisConnectionException || e instanceof RedisCommandInterruptedException) {
            return ServerErrors.failure(script, message, e, true);
        }
        String m = message.toLowerCase(Locale.ROOT);
        if (e instanceof RedisException && (m.contains("connection is closed") || m.equals("connection closed"))) {
            return ServerErrors.closed(script, e);
        }
        if (e instanceof IllegalStateException || e instanceof RejectedExecutionException) {
            // A shut-down client, an event loop that no longer takes work.
            return ServerErrors.closed(script, e);
        }
        if (e instanceof IllegalArgumentException) {
            // A client without a URI to connect to, or a setting Lettuce refuses.
            return ServerErrors.failure(script, "the Lettuce client cannot connect: " + e.getMessage(), e, false);
        }
        // A connection reset or refused while a command was in flight (the write may have landed),
        // disconnected and rejecting commands, no node for a slot: conditions that pass.
        return ServerErrors.failure(script, e.toString(), e, true);
    }
}
