package dev.idem.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A real HTTP/1.1 client for the tests. */
final class Http {
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final String base;

    Http(String base) {
        this.base = base;
    }

    HttpResponse<byte[]> send(String method, String path, byte[] body, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                // A bound, not an expectation: a loaded 2-core machine took over 10 s for one request.
                .timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> post(String path, String json, String... headers) throws IOException, InterruptedException {
        String[] all = new String[headers.length + 2];
        all[0] = "Content-Type";
        all[1] = "application/json";
        System.arraycopy(headers, 0, all, 2, headers.length);
        return send("POST", path, json.getBytes(StandardCharsets.UTF_8), all);
    }

    /** Sends without waiting: for a request whose server dies before answering. */
    java.util.concurrent.CompletableFuture<HttpResponse<byte[]>> postAsync(String path, String json,
            String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(json));
        b.header("Content-Type", "application/json");
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return client.sendAsync(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    /** The response headers a replay must repeat, without those the server adds per response. */
    static Map<String, List<String>> stableHeaders(HttpResponse<byte[]> r) {
        Map<String, List<String>> out = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        r.headers().map().forEach((name, values) -> {
            String n = name.toLowerCase(java.util.Locale.ROOT);
            if (!n.equals("date") && !n.equals("idempotency-status") && !n.equals("idempotent-replayed")
                    && !n.equals("server") && !n.equals("connection") && !n.equals(":status")) {
                out.put(name, new ArrayList<>(values));
            }
        });
        return out;
    }
}
