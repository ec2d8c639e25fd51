package dev.idem.store.redis.internal;

import dev.idem.api.StoreUnavailableException;
import dev.idem.store.redis.RedisScript;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * How a failed call leaves a client adapter: one wording and one judgement of "may a retry help"
 * for every client, from the Redis error reply where there is one.
 */
public final class ServerErrors {
    private ServerErrors() {
    }

    /**
     * Whether an error reply from the server names a passing state (a retry may succeed) rather
     * than one that will fail the same way next time (WRONGTYPE, a script error, a corrupt record,
     * NOAUTH).
     *
     * @param message the error reply, such as {@code "BUSY Redis is busy running a script"}
     * @param cluster whether the client follows cluster redirections; a redirection reaching a
     *        client that does not is a misconfiguration (a standalone client on a cluster node)
     * @return whether a retry may help
     */
    public static boolean retryable(@Nullable String message, boolean cluster) {
        String m = String.valueOf(message).trim().toUpperCase(Locale.ROOT);
        if (m.startsWith("MOVED") || m.startsWith("ASK")) {
            return cluster;
        }
        return m.startsWith("LOADING") || m.startsWith("BUSY") || m.startsWith("TRYAGAIN")
                || m.startsWith("CLUSTERDOWN") || m.startsWith("MASTERDOWN") || m.startsWith("READONLY")
                || m.startsWith("OOM") || m.startsWith("NOREPLICAS");
    }

    /**
     * Whether the error reply is an authentication or permission refusal.
     *
     * @param message the error reply
     * @return whether it is one
     */
    public static boolean accessDenied(@Nullable String message) {
        String m = String.valueOf(message).trim().toUpperCase(Locale.ROOT);
        return m.startsWith("NOAUTH") || m.startsWith("WRONGPASS") || m.startsWith("NOPERM");
    }

    /**
     * The store failure for a failed call of {@code script}.
     *
     * @param script the script
     * @param what what went wrong, in a few words
     * @param cause the client's exception
     * @param retryable whether a retry may help
     * @return the failure
     */
    public static StoreUnavailableException failure(RedisScript script, String what, @Nullable Throwable cause,
            boolean retryable) {
        return new StoreUnavailableException("Redis " + script.name() + " failed: " + what, cause, retryable);
    }

    /**
     * The failure for a call through a client the adapter was closed on, or that was shut down.
     *
     * @param script the script
     * @param cause the client's exception, if any
     * @return the failure, not retryable
     */
    public static StoreUnavailableException closed(RedisScript script, @Nullable Throwable cause) {
        return failure(script, "the Redis client is closed" + (cause == null ? "" : " (" + cause.getMessage() + ")"),
                cause, false);
    }
}
