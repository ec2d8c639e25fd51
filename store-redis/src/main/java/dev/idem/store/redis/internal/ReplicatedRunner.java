package dev.idem.store.redis.internal;

import dev.idem.api.StoreUnavailableException;
import dev.idem.store.redis.RedisScript;
import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.internal.Replies.MalformedReplyException;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * Runs a write script and, when the store waits for replicas, {@code WAIT} behind it on the
 * same connection in the same round trip; then tells whether enough replicas acknowledged.
 */
public final class ReplicatedRunner {
    /**
     * A script's reply and how many replicas acknowledged it (-1 when not waiting).
     *
     * @param value the reply
     * @param acked the acknowledgements
     */
    public record Reply(@Nullable Object value, long acked) {
    }

    private final RedisScriptClient scripts;
    private final int replicas;
    private final long timeoutMillis;

    /** Creates the runner; {@code replicas = 0} runs scripts alone. */
    public ReplicatedRunner(RedisScriptClient scripts, int replicas, long timeoutMillis) {
        this.scripts = scripts;
        this.replicas = replicas;
        this.timeoutMillis = timeoutMillis;
    }

    /** Runs {@code script}, with {@code WAIT} behind it when configured. */
    public CompletionStage<Reply> run(RedisScript script, byte[] key, List<byte[]> args) {
        if (replicas == 0) {
            return scripts.run(script, key, args).thenApply(value -> new Reply(value, -1));
        }
        return scripts.runThenWait(script, key, args, replicas, timeoutMillis).thenApply(w -> new Reply(w.reply(),
                w.acknowledged()));
    }

    /** Whether the store waits for replicas and fewer than required acknowledged this write. */
    public boolean tooFew(Reply reply) {
        return replicas > 0 && reply.acked() < replicas;
    }

    /** The retryable failure for a write that too few replicas acknowledged. */
    public StoreUnavailableException failure(String what, Reply reply, String andThen) {
        return new StoreUnavailableException(what + " stored on the Redis primary but acknowledged by " + reply.acked()
                + " of " + replicas + " required replicas within " + timeoutMillis + " ms" + andThen, null, true);
    }

    /**
     * Reads a {@code WAIT} reply.
     *
     * @param reply the reply
     * @return the number of replicas
     * @throws StoreUnavailableException if it is not an integer
     */
    public static long acknowledged(@Nullable Object reply) {
        try {
            return Replies.integer(reply, "WAIT reply");
        } catch (MalformedReplyException e) {
            throw new StoreUnavailableException("unreadable reply from Redis WAIT: " + e.getMessage(), e, false);
        }
    }
}
