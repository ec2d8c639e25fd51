package dev.idem.store.redis.internal;

import dev.idem.api.StoreUnavailableException;
import dev.idem.store.redis.internal.Replies.MalformedReplyException;
import java.util.List;

/**
 * Runs a write script and, when the store waits for replicas, {@code WAIT} behind it on the
 * same connection in the same round trip; then tells whether enough replicas acknowledged.
 */
public final class ReplicatedRunner {
    /** A script's reply and how many replicas acknowledged it (-1 when not waiting). */
    public record Reply(Object value, long acked) {
    }

    private final ScriptRunner scripts;
    private final int replicas;
    private final long timeoutMillis;

    /** Creates the runner; {@code replicas = 0} runs scripts alone. */
    public ReplicatedRunner(ScriptRunner scripts, int replicas, long timeoutMillis) {
        this.scripts = scripts;
        this.replicas = replicas;
        this.timeoutMillis = timeoutMillis;
    }

    /** Runs {@code script}, with {@code WAIT} behind it when configured. */
    public Reply run(LuaScript script, byte[] key, List<byte[]> args) {
        if (replicas == 0) {
            return new Reply(scripts.run(script, key, args), -1);
        }
        Object[] replyAndAcks = scripts.runThenWait(script, key, args, replicas, timeoutMillis);
        try {
            return new Reply(replyAndAcks[0], Replies.integer(replyAndAcks[1], "WAIT reply"));
        } catch (MalformedReplyException e) {
            throw new StoreUnavailableException("unreadable reply from Redis WAIT: " + e.getMessage(), e, false);
        }
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
}
