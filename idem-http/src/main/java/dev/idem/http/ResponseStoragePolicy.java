package dev.idem.http;

import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Which final responses are stored and replayed, by status. A response that is not stored
 * is still sent, but the key is released so a retry runs the handler again. An exception
 * from the handler always releases the key (unless the engine's failure classifier calls
 * it final).
 */
@FunctionalInterface
public interface ResponseStoragePolicy {
    /**
     * Whether a response with {@code status} is stored.
     *
     * @param status the HTTP status of the handler's response
     * @return whether a response with {@code status} is stored
     */
    boolean stores(int status);

    /**
     * The default: 2xx, 3xx and the 4xx statuses that repeating the same request cannot
     * change are stored. Not stored: 5xx; the 4xx that depend on time or on state outside
     * the request (401, 403, 407, 408, 409, 423, 424, 425, 429); and the 4xx that say nothing
     * about the operation, only about how the request was framed (405 method not allowed, 406
     * not acceptable, 415 unsupported media type): storing those would let any caller fill the
     * store with records that answer no intent.
     *
     * @return the default policy
     */
    static ResponseStoragePolicy standard() {
        return status -> {
            if (status >= 200 && status < 400) {
                return true;
            }
            switch (status) {
                case 401: case 403: case 405: case 406: case 407: case 408: case 409: case 415: case 423: case 424:
                case 425: case 429:
                    return false;
                default:
                    return status >= 400 && status < 500;
            }
        };
    }

    /**
     * Stores exactly the statuses {@code predicate} accepts.
     *
     * @param predicate true for statuses to store
     * @return the policy
     */
    static ResponseStoragePolicy of(IntPredicate predicate) {
        Objects.requireNonNull(predicate, "predicate");
        return predicate::test;
    }
}
