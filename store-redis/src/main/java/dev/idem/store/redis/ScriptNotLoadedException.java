package dev.idem.store.redis;

import dev.idem.api.StoreUnavailableException;
import org.jspecify.annotations.Nullable;

/**
 * The Redis node answered {@code NOSCRIPT} to an {@code EVALSHA}: it does not hold the script
 * (first use after a start, a restart, a failover or {@code SCRIPT FLUSH}).
 * {@link RedisScriptClient#run} then sends the source with {@code EVAL}; this exception leaves a
 * store only from a client adapter that reports it for an {@code EVAL}, which cannot happen with
 * a conforming server. Retryable.
 */
public final class ScriptNotLoadedException extends StoreUnavailableException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param script the script the node lacks
     * @param cause the client's own exception, if any
     */
    public ScriptNotLoadedException(RedisScript script, @Nullable Throwable cause) {
        super("Redis " + script.name() + ": the node does not hold the script (NOSCRIPT)", cause, true);
    }
}
