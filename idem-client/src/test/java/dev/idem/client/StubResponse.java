package dev.idem.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/** A hand-made response for classifier tests that need no server. */
final class StubResponse<T> implements HttpResponse<T> {

    private final int status;
    private final HttpHeaders headers;
    private final T body;

    private StubResponse(int status, HttpHeaders headers, T body) {
        this.status = status;
        this.headers = headers;
        this.body = body;
    }

    /** {@code headerPairs} alternates names and values. */
    static <T> StubResponse<T> of(int status, T body, String... headerPairs) {
        Map<String, List<String>> map = new HashMap<>();
        for (int i = 0; i < headerPairs.length; i += 2) {
            map.put(headerPairs[i], List.of(headerPairs[i + 1]));
        }
        return new StubResponse<>(status, HttpHeaders.of(map, (n, v) -> true), body);
    }

    @Override
    public int statusCode() {
        return status;
    }

    @Override
    public HttpRequest request() {
        return HttpRequest.newBuilder(uri()).build();
    }

    @Override
    public Optional<HttpResponse<T>> previousResponse() {
        return Optional.empty();
    }

    @Override
    public HttpHeaders headers() {
        return headers;
    }

    @Override
    public T body() {
        return body;
    }

    @Override
    public Optional<SSLSession> sslSession() {
        return Optional.empty();
    }

    @Override
    public URI uri() {
        return URI.create("http://localhost/stub");
    }

    @Override
    public HttpClient.Version version() {
        return HttpClient.Version.HTTP_1_1;
    }
}
