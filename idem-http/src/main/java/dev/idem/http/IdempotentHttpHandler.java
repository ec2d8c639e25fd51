package dev.idem.http;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpPrincipal;
import dev.idem.engine.ExecutionContext;
import dev.idem.http.internal.BufferingExchange;
import dev.idem.http.internal.Processor;
import dev.idem.http.internal.StoredResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The Idempotency-Key contract for the JDK's {@code com.sun.net.httpserver}, as a decorator
 * of your handler: {@code server.createContext("/v1/charges", new IdempotentHttpHandler(config, charges))}.
 *
 * <p>A handler rather than a {@code Filter} on purpose: the JDK server runs a context's
 * {@code Filter}s before its {@code Authenticator}, so a filter would not see the principal,
 * and the server's authentication step cannot work on a wrapped exchange. The decorator runs
 * after authentication and calls your handler directly.
 *
 * <p>Covered requests reach the handler with a buffered body, and the handler's response
 * (status, headers, body) is buffered too, so it can be stored before it is sent; the
 * handler finds the {@link ExecutionContext} in the exchange attribute
 * {@link HttpIdempotency#CONTEXT_ATTRIBUTE}. Other requests go to the handler untouched. An
 * exception from the handler releases the key and propagates. Thread-safe if the handler is.
 */
public final class IdempotentHttpHandler implements HttpHandler {
    private final Processor processor;
    private final HttpHandler handler;

    /**
     * Applies {@code config} to the requests of {@code handler}.
     *
     * @param config the HTTP contract's configuration
     * @param handler the application's handler, run at most once per key
     */
    public IdempotentHttpHandler(HttpIdempotency config, HttpHandler handler) {
        this.processor = new Processor(Objects.requireNonNull(config, "config"));
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try {
            processor.handle(new JdkExchange(exchange, handler));
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    private static final class JdkExchange implements Processor.Exchange, IncomingRequest {
        private final HttpExchange exchange;
        private final HttpHandler handler;

        JdkExchange(HttpExchange exchange, HttpHandler handler) {
            this.exchange = exchange;
            this.handler = handler;
        }

        @Override
        public IncomingRequest request() {
            return this;
        }

        @Override
        public String method() {
            return exchange.getRequestMethod();
        }

        @Override
        public String path() {
            String path = exchange.getRequestURI().getRawPath();
            return path == null ? "" : path;
        }

        @Override
        public String query() {
            String query = exchange.getRequestURI().getRawQuery();
            return query == null ? "" : query;
        }

        @Override
        public List<String> headers(String name) {
            List<String> values = exchange.getRequestHeaders().get(name);
            return values == null ? List.of() : List.copyOf(values);
        }

        @Override
        public Optional<String> authenticatedUser() {
            HttpPrincipal principal = exchange.getPrincipal();
            return principal == null ? Optional.empty() : Optional.of(principal.getName());
        }

        @Override
        public <T> Optional<T> unwrap(Class<T> type) {
            return type.isInstance(exchange) ? Optional.of(type.cast(exchange)) : Optional.empty();
        }

        @Override
        public byte[] readBody(int limit) throws IOException {
            try (InputStream in = exchange.getRequestBody()) {
                return in.readNBytes(limit + 1);
            }
        }

        @Override
        public void passThrough() throws IOException {
            handler.handle(exchange);
        }

        @Override
        public StoredResponse proceed(byte[] body, ExecutionContext context, int maxResponseBytes)
                throws IOException {
            BufferingExchange buffered = new BufferingExchange(exchange, body, maxResponseBytes);
            buffered.setAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE, context);
            handler.handle(buffered);
            return buffered.captured();
        }

        @Override
        public void send(StoredResponse response, Map<String, String> extraHeaders) throws IOException {
            Headers headers = exchange.getResponseHeaders();
            // Mutable copies: the server may still add to these lists.
            response.headers().forEach((name, values) -> headers.put(name, new ArrayList<>(values)));
            extraHeaders.forEach(headers::set);
            int length = response.bodyLength();
            int status = response.status();
            boolean noBody = length == 0 || status == 204 || status == 304 || status < 200
                    || "HEAD".equals(exchange.getRequestMethod());
            exchange.sendResponseHeaders(status, noBody ? -1 : length);
            if (!noBody) {
                try (OutputStream out = exchange.getResponseBody()) {
                    response.writeBody(out);
                }
            }
            exchange.close();
        }
    }
}
