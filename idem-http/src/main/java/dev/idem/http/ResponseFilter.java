package dev.idem.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.protection.OutcomeFilter;
import dev.idem.http.internal.MediaTypes;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Decides what of a handler's response is stored, and rebuilds the replayed response from it:
 * leave fields of a JSON body out ({@link #removingJsonFields}), or keep a reference and load
 * the rest again on replay. Set it with {@link HttpIdempotency.Builder#responseFilter}. It
 * sees the response after the stored-header allow-list ({@link HttpIdempotency.Builder#storedHeaders})
 * and before the engine encrypts the outcome; what it returns is held to the same allow-list,
 * both when stored and when replayed. The first caller gets the handler's own response; every
 * replay sends what {@link #rebuild} returns. {@link #keep} runs once, when the response is
 * stored: what it returns is stored as any response is, and a replay sends it without decoding
 * anything unless the filter overrides {@link #rebuild}, which is then called on every replay.
 *
 * <p>If {@link #keep} throws, the handler's effect stands and the outcome is stored as "not
 * stored": the first call and every retry are answered 500 {@code outcome-not-stored}, and
 * the handler does not run again. If {@link #rebuild} throws, that replay is answered 500
 * {@code outcome-unreadable} and the record stays, so a later retry may succeed. It plays the part
 * of the engine's {@link OutcomeFilter} for HTTP responses. Implementations are thread-safe.
 */
public interface ResponseFilter {
    /**
     * A response as stored: status, headers (names as the handler spelled them, values in
     * order) and body. Immutable; the body is copied in and out.
     *
     * @param status the status code
     * @param headers the headers
     * @param body the body
     */
    record Response(int status, Map<String, List<String>> headers, byte[] body) {
        /**
         * Copies the arguments.
         *
         * @param status the status code, 100..999
         * @param headers the headers
         * @param body the body
         */
        public Response {
            if (status < 100 || status > 999) {
                throw new IllegalArgumentException("status must be a three-digit code but was " + status);
            }
            Map<String, List<String>> copy = new LinkedHashMap<>();
            Objects.requireNonNull(headers, "headers").forEach((name, values) -> copy.put(
                    Objects.requireNonNull(name, "header name"), List.copyOf(values)));
            headers = Collections.unmodifiableMap(copy);
            body = Objects.requireNonNull(body, "body").clone();
        }

        /**
         * A copy of the body.
         *
         * @return the body
         */
        @Override
        public byte[] body() {
            return body.clone();
        }

        /**
         * This response with another body.
         *
         * @param newBody the body
         * @return a new response
         */
        public Response withBody(byte[] newBody) {
            return new Response(status, headers, newBody);
        }

        /**
         * The first value of a header, matched ignoring case, or null.
         *
         * @param name the header name
         * @return the first value, or null
         */
        public String header(String name) {
            for (Map.Entry<String, List<String>> e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
                    return e.getValue().get(0);
                }
            }
            return null;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Response r && r.status == status && r.headers.equals(headers)
                    && Arrays.equals(r.body, body);
        }

        @Override
        public int hashCode() {
            return Objects.hash(status, headers) * 31 + Arrays.hashCode(body);
        }

        @Override
        public String toString() {
            return "Response[" + status + ", " + headers.keySet() + ", " + body.length + " bytes]";
        }
    }

    /**
     * What is stored of a response.
     *
     * @param key the request's idempotency key (scope: the caller; operation: method and path)
     * @param response the response, with the stored headers only
     * @return the response to store
     * @throws Exception if it cannot be filtered (the outcome is then not stored)
     */
    Response keep(IdempotencyKey key, Response response) throws Exception;

    /**
     * The response a replay sends, from what {@link #keep} stored. The default returns it
     * unchanged.
     *
     * @param key the request's idempotency key
     * @param stored what was stored
     * @return the response to send
     * @throws Exception if it cannot be rebuilt now (that replay fails, the record stays)
     */
    default Response rebuild(IdempotencyKey key, Response stored) throws Exception {
        return stored;
    }

    /**
     * Leaves the members at these RFC 6901 JSON Pointers out of JSON bodies
     * ({@code application/json} and {@code application/*+json}); other bodies are stored as
     * they are. A replay sends the body without them (so not byte for byte the first one).
     *
     * @param pointers JSON Pointers, each starting with {@code /}
     * @return the filter
     * @throws IllegalArgumentException if a pointer is not a valid non-root JSON Pointer
     */
    static ResponseFilter removingJsonFields(String... pointers) {
        OutcomeFilter removing = OutcomeFilter.removing(pointers);
        ObjectMapper mapper = new ObjectMapper();
        List<String> named = List.of(pointers);
        return new ResponseFilter() {
            @Override
            public Response keep(IdempotencyKey key, Response response) throws Exception {
                byte[] body = response.body();
                if (body.length == 0 || !MediaTypes.isJson(String.valueOf(response.header("Content-Type")))) {
                    return response;
                }
                JsonNode tree = mapper.readTree(body);
                return response.withBody(mapper.writeValueAsBytes(removing.keep(key, tree)));
            }

            @Override
            public String toString() {
                return "ResponseFilter.removingJsonFields" + named;
            }
        };
    }
}
