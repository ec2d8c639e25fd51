package dev.idem.store.redis.internal;

import dev.idem.api.StoreUnavailableException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * The blocking side of the stores' operations, which are written once as stages: waits for a
 * stage and throws what failed it as it was thrown (a stage of a blocking client has completed
 * before it is returned, so this adds no wait there).
 */
public final class Await {
    private Await() {
    }

    /**
     * Waits for {@code stage} (interruptibly; adapters bound every stage by their command timeout).
     *
     * @param <T> the result type
     * @param stage the stage
     * @return its result
     */
    public static <T> T result(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get();
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        } catch (CancellationException e) {
            throw new StoreUnavailableException("the Redis call was cancelled; its script may have run", e, true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted while waiting for Redis; the script may have run", e, true);
        }
    }

    /**
     * What failed a stage, unwrapped from {@link CompletionException}, as an unchecked exception
     * to throw: runtime exceptions and errors as they are, anything else as a store failure.
     *
     * @param failure the failure
     * @return the exception to throw
     */
    public static RuntimeException rethrow(Throwable failure) {
        Throwable t = unwrap(failure);
        if (t instanceof RuntimeException) {
            return (RuntimeException) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        return new StoreUnavailableException("Redis call failed: " + t, t, false);
    }

    /**
     * {@code failure} without {@link CompletionException} and {@link ExecutionException} wrappers.
     *
     * @param failure the failure
     * @return the cause that matters
     */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
