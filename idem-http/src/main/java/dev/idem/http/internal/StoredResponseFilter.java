package dev.idem.http.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.protection.OutcomeFilter;
import dev.idem.http.ResponseFilter;
import java.util.Objects;
import java.util.Set;

/**
 * A {@link ResponseFilter} as the engine's {@link OutcomeFilter} of the stored response's JSON
 * tree: what the filter returns, stored or rebuilt, is held to the stored-header allow-list
 * again, so it cannot add a header that is never replayed. Not API.
 */
public final class StoredResponseFilter implements OutcomeFilter {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final ResponseFilter filter;
    private final Set<String> storedHeaders;

    /** Adapts {@code filter}; {@code storedHeaders} are lower-case names. */
    public StoredResponseFilter(ResponseFilter filter, Set<String> storedHeaders) {
        this.filter = Objects.requireNonNull(filter, "filter");
        this.storedHeaders = storedHeaders;
    }

    @Override
    public JsonNode keep(IdempotencyKey key, JsonNode result) throws Exception {
        return tree(filter.keep(key, response(result)));
    }

    @Override
    public JsonNode rebuild(IdempotencyKey key, JsonNode stored) throws Exception {
        return tree(filter.rebuild(key, response(stored)));
    }

    private static ResponseFilter.Response response(JsonNode tree) throws Exception {
        StoredResponse r = MAPPER.treeToValue(tree, StoredResponse.class);
        return new ResponseFilter.Response(r.status(), r.headers(), r.body());
    }

    private JsonNode tree(ResponseFilter.Response r) {
        if (r == null) {
            throw new IllegalStateException("the response filter " + filter + " returned null");
        }
        return MAPPER.valueToTree(new StoredResponse(r.status(), r.headers(), r.body()).withHeadersOnly(storedHeaders));
    }

    @Override
    public String toString() {
        return "StoredResponseFilter[" + filter + "]";
    }
}
