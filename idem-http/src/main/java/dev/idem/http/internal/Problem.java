package dev.idem.http.internal;

import dev.idem.http.HttpIdempotency;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** RFC 9457 {@code application/problem+json} responses. Not API. */
public final class Problem {
    private Problem() {
    }

    /**
     * A problem response; {@code retryAfter} (may be null) becomes a {@code Retry-After} header
     * in whole seconds, rounded up and at least 1.
     */
    public static StoredResponse of(int status, String slug, String title, String detail, Duration retryAfter,
            Map<String, String> extensions) {
        StringBuilder json = new StringBuilder(160).append('{');
        member(json, "type", HttpIdempotency.PROBLEM_TYPE_PREFIX + slug).append(',');
        member(json, "title", title).append(',');
        json.append("\"status\":").append(status).append(',');
        member(json, "detail", detail);
        for (Map.Entry<String, String> e : extensions.entrySet()) {
            member(json.append(','), e.getKey(), e.getValue());
        }
        json.append('}');
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Content-Type", List.of("application/problem+json"));
        if (retryAfter != null) {
            headers.put("Retry-After", List.of(Long.toString(retrySeconds(retryAfter))));
        }
        return new StoredResponse(status, headers, json.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** A problem without a Retry-After or extensions. */
    public static StoredResponse of(int status, String slug, String title, String detail) {
        return of(status, slug, title, detail, null, Map.of());
    }

    static long retrySeconds(Duration d) {
        long seconds = (d.toMillis() + 999) / 1000;
        return Math.max(1, seconds);
    }

    private static StringBuilder member(StringBuilder json, String name, String value) {
        return string(string(json, name).append(':'), value);
    }

    private static StringBuilder string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        return out.append('"');
    }
}
