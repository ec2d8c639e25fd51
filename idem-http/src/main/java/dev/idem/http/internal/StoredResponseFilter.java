package dev.idem.http.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.OutcomeNotStoredException;
import dev.idem.engine.OutcomeUnreadableException;
import dev.idem.http.ResponseFilter;
import java.util.Objects;
import java.util.Set;

/**
 * A {@link ResponseFilter} applied to the response itself, not to a JSON form of it: {@link #keep}
 * runs once, when the response is stored, and what it returns is stored as a frame like any
 * other response, so a replay writes that frame back without decoding it. Only a filter that
 * overrides {@link ResponseFilter#rebuild} is called again on a replay. What the filter returns,
 * stored or rebuilt, is held to the stored-header allow-list again, so it cannot add a header
 * that is never replayed. Not API.
 */
public final class StoredResponseFilter {
    private final ResponseFilter filter;
    private final Set<String> storedHeaders;
    private final boolean rebuilds;

    /** Adapts {@code filter}; {@code storedHeaders} are lower-case names. */
    public StoredResponseFilter(ResponseFilter filter, Set<String> storedHeaders) {
        this.filter = Objects.requireNonNull(filter, "filter");
        this.storedHeaders = storedHeaders;
        this.rebuilds = overridesRebuild(filter);
    }

    private static boolean overridesRebuild(ResponseFilter filter) {
        try {
            return filter.getClass().getMethod("rebuild", IdempotencyKey.class, ResponseFilter.Response.class)
                    .getDeclaringClass() != ResponseFilter.class;
        } catch (NoSuchMethodException e) {
            // Cannot happen for an implementation of the interface; calling it is always correct.
            return true;
        }
    }

    /**
     * What is stored of {@code response}.
     *
     * @throws OutcomeNotStoredException if the filter throws or returns null: the engine then stores
     *     the "not stored" marker, so the handler does not run again
     */
    public StoredResponse keep(IdempotencyKey key, StoredResponse response) {
        try {
            return held(filter.keep(key, response(response)));
        } catch (Exception e) {
            throw new OutcomeNotStoredException(key, "the response filter threw " + e, false, e);
        }
    }

    /**
     * The response a replay sends from the stored one: the stored one itself unless the filter
     * rebuilds responses.
     *
     * @throws OutcomeUnreadableException if the filter throws or returns null (that replay fails, the
     *     record stays)
     */
    public StoredResponse rebuild(IdempotencyKey key, StoredResponse stored) {
        if (!rebuilds) {
            return stored;
        }
        try {
            return held(filter.rebuild(key, response(stored)));
        } catch (Exception e) {
            throw new OutcomeUnreadableException(key, OutcomeUnreadableException.Reason.REBUILD_FAILED, null,
                    "the response filter could not rebuild the response: " + e, e);
        }
    }

    private static ResponseFilter.Response response(StoredResponse r) {
        return new ResponseFilter.Response(r.status(), r.headers(), r.body());
    }

    private StoredResponse held(ResponseFilter.Response r) {
        if (r == null) {
            throw new IllegalStateException("the response filter " + filter + " returned null");
        }
        return new StoredResponse(r.status(), r.headers(), r.body()).withHeadersOnly(storedHeaders);
    }

    @Override
    public String toString() {
        return "StoredResponseFilter[" + filter + "]";
    }
}
