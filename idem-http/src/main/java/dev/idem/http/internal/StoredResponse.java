package dev.idem.http.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A final response as the handler produced it: status, headers (names as the handler spelled
 * them, values in order) and body bytes. The engine stores it as JSON (the body as Base64)
 * and replays it unchanged. Immutable. Not API.
 */
public final class StoredResponse {
    private final int status;
    private final Map<String, List<String>> headers;
    private final byte[] body;

    /** Creates a response; copies its arguments. */
    @JsonCreator
    public StoredResponse(@JsonProperty("status") int status,
            @JsonProperty("headers") Map<String, List<String>> headers,
            @JsonProperty("body") byte[] body) {
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("status must be a three-digit code but was " + status);
        }
        this.status = status;
        Map<String, List<String>> copy = new LinkedHashMap<>();
        if (headers != null) {
            headers.forEach((name, values) -> copy.put(Objects.requireNonNull(name, "header name"),
                    List.copyOf(values)));
        }
        this.headers = Collections.unmodifiableMap(copy);
        this.body = body == null ? new byte[0] : body.clone();
    }

    /** The status code. */
    @JsonProperty("status")
    public int status() {
        return status;
    }

    /** The headers, in the order the handler set them. */
    @JsonProperty("headers")
    public Map<String, List<String>> headers() {
        return headers;
    }

    /** A copy of the body. */
    @JsonProperty("body")
    public byte[] body() {
        return body.clone();
    }

    /** The body without copying; callers must not modify it. */
    public byte[] bodyUnsafe() {
        return body;
    }

    /** This response with only the headers whose lower-case names are in {@code names}. */
    public StoredResponse withHeadersOnly(Set<String> names) {
        Map<String, List<String>> kept = new LinkedHashMap<>();
        headers.forEach((name, values) -> {
            if (names.contains(name.toLowerCase(Locale.ROOT))) {
                kept.put(name, values);
            }
        });
        return new StoredResponse(status, kept, body);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredResponse r && r.status == status && r.headers.equals(headers)
                && Arrays.equals(r.body, body);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, headers) * 31 + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "StoredResponse[" + status + ", " + headers.keySet() + ", " + body.length + " bytes]";
    }
}
