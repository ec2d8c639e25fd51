package dev.idem.engine.protection;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.api.IdempotencyKey;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides what of a work's result is stored, and rebuilds the replayed result from it: keep
 * all of it (the default, no filter), leave fields out ({@link #removing}), or keep a
 * reference and load the rest again on replay. Set it for every call with
 * {@link dev.idem.engine.IdempotencyEngineBuilder#outcomeFilter} or per call with
 * {@link dev.idem.engine.CallOptions.Builder#outcomeFilter}.
 *
 * <p>The result is seen as the JSON tree the engine's codec writes (read into a Jackson 2
 * tree, whatever the codec), before the outcome is encrypted. Only a success is filtered:
 * final failures and step results are stored as they are (step results are what a resumed
 * execution builds on). The first caller gets the work's own value; every replay decodes
 * what {@link #rebuild} returns.
 *
 * <pre>{@code
 * // Keep the charge id only; load the charge again on replay.
 * OutcomeFilter byReference = new OutcomeFilter() {
 *     public JsonNode keep(IdempotencyKey key, JsonNode result) {
 *         return JsonNodeFactory.instance.objectNode().put("id", result.path("id").asText());
 *     }
 *     public JsonNode rebuild(IdempotencyKey key, JsonNode stored) {
 *         return mapper.valueToTree(charges.find(stored.path("id").asText()));
 *     }
 * };
 * }</pre>
 *
 * <p>If {@link #keep} throws, the work's effect stands and the outcome is stored as "not
 * stored" with the exception as its reason ({@link dev.idem.engine.OutcomeNotStoredException},
 * now and for every retry), as for an outcome over the size limit. If {@link #rebuild} throws,
 * that replay fails with {@link dev.idem.engine.OutcomeUnreadableException} (its cause the
 * exception) and the record stays as it is, so a later retry may succeed. {@code rebuild} also
 * sees records written before the filter was set: return such a tree unchanged. Implementations
 * are thread-safe.
 *
 * <p>A filter applies to results written as JSON. A {@link dev.idem.engine.StoredBytes} result
 * is stored as the work rendered it: its producer decides what it holds (idem-http's
 * {@code ResponseFilter} does for HTTP responses), so an engine-wide filter meant for typed
 * results never fails a call that stores bytes.
 */
public interface OutcomeFilter {
    /**
     * What is stored of a result.
     *
     * @param key the call's key
     * @param result the result as a JSON tree (a fresh tree: it may be changed in place)
     * @return the tree to store
     * @throws Exception if the result cannot be filtered (the outcome is then not stored)
     */
    JsonNode keep(IdempotencyKey key, JsonNode result) throws Exception;

    /**
     * What a replay decodes, from what {@link #keep} stored. The default returns it unchanged.
     *
     * @param key the call's key
     * @param stored the stored tree (a fresh tree: it may be changed in place)
     * @return the tree the replay decodes as the call's result type
     * @throws Exception if it cannot be rebuilt now (the replay fails, the record stays)
     */
    default JsonNode rebuild(IdempotencyKey key, JsonNode stored) throws Exception {
        return stored;
    }

    /**
     * A filter that leaves out the members at these RFC 6901 JSON Pointers
     * ({@code /card/number}, {@code /payer/email}); an array element named by a pointer
     * ({@code /cards/0}) is replaced by null, so later elements keep their positions. A pointer
     * that matches nothing is ignored.
     * A replay decodes the rest, so the left-out fields come back as the result type's defaults
     * (null for an object).
     *
     * @param pointers JSON Pointers, each starting with {@code /}
     * @return the filter
     * @throws IllegalArgumentException if a pointer is not a valid non-root JSON Pointer
     */
    static OutcomeFilter removing(String... pointers) {
        List<JsonPointer> parsed = new ArrayList<>();
        for (String p : pointers) {
            if (p == null || p.isEmpty() || p.charAt(0) != '/') {
                throw new IllegalArgumentException("a JSON Pointer to remove must start with '/' but was " + p);
            }
            parsed.add(JsonPointer.compile(p));
        }
        List<JsonPointer> all = List.copyOf(parsed);
        return new OutcomeFilter() {
            @Override
            public JsonNode keep(IdempotencyKey key, JsonNode result) {
                for (JsonPointer p : all) {
                    JsonNode parent = result.at(p.head());
                    JsonPointer last = p.last();
                    if (parent instanceof ObjectNode o) {
                        o.remove(last.getMatchingProperty());
                    } else if (parent instanceof ArrayNode a && last.mayMatchElement()
                            && last.getMatchingIndex() < a.size()) {
                        // Nulled, not removed: the positions of later elements (and pointers) stay.
                        a.set(last.getMatchingIndex(), NullNode.getInstance());
                    }
                }
                return result;
            }

            @Override
            public String toString() {
                return "OutcomeFilter.removing" + all;
            }
        };
    }
}
