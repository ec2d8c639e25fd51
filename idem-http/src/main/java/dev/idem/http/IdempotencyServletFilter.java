package dev.idem.http;

import dev.idem.engine.ExecutionContext;
import dev.idem.http.internal.BufferedServletRequest;
import dev.idem.http.internal.BufferedServletResponse;
import dev.idem.http.internal.Processor;
import dev.idem.http.internal.StoredResponse;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.Objects;

/**
 * The Idempotency-Key contract as a Jakarta Servlet {@link Filter} (Servlet 6): register it
 * for the idempotent paths, after authentication so {@code getUserPrincipal()} is set.
 *
 * <p>Covered requests reach the servlet with a buffered body (read it with
 * {@code getInputStream()} or {@code getReader()}; form parameters are not re-parsed from it)
 * and write into a buffered response, so the outcome can be stored before it is sent; the
 * servlet finds the {@link ExecutionContext} in the request attribute
 * {@link HttpIdempotency#CONTEXT_ATTRIBUTE}. The servlet must finish synchronously (no async
 * processing). Other requests pass through untouched. Thread-safe.
 */
public final class IdempotencyServletFilter implements Filter {
    private final Processor processor;

    /**
     * A filter applying {@code config}.
     *
     * @param config the HTTP contract's configuration
     */
    public IdempotencyServletFilter(HttpIdempotency config) {
        this.processor = new Processor(Objects.requireNonNull(config, "config"));
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest) || !(response instanceof HttpServletResponse)) {
            chain.doFilter(request, response);
            return;
        }
        try {
            processor.handle(new ServletExchange((HttpServletRequest) request, (HttpServletResponse) response, chain));
        } catch (IOException | ServletException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new ServletException(e);
        }
    }

    private static final class ServletExchange implements Processor.Exchange {
        private final HttpServletRequest request;
        private final IncomingRequest view;
        private final HttpServletResponse response;
        private final FilterChain chain;

        ServletExchange(HttpServletRequest request, HttpServletResponse response, FilterChain chain) {
            this.request = request;
            this.view = ServletIncomingRequest.of(request);
            this.response = response;
            this.chain = chain;
        }

        @Override
        public IncomingRequest request() {
            return view;
        }

        @Override
        public byte[] readBody(int limit) throws IOException {
            try (InputStream in = request.getInputStream()) {
                return in.readNBytes(limit + 1);
            }
        }

        @Override
        public void passThrough() throws IOException, ServletException {
            chain.doFilter(request, response);
        }

        @Override
        public StoredResponse proceed(byte[] body, ExecutionContext context, int maxResponseBytes)
                throws IOException, ServletException {
            BufferedServletRequest wrappedRequest = new BufferedServletRequest(request, body);
            wrappedRequest.setAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE, context);
            BufferedServletResponse wrappedResponse = new BufferedServletResponse(response, maxResponseBytes);
            try {
                chain.doFilter(wrappedRequest, wrappedResponse);
            } finally {
                wrappedRequest.removeAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE);
            }
            return wrappedResponse.captured();
        }

        @Override
        public void send(StoredResponse stored, Map<String, String> extraHeaders) throws IOException {
            response.setStatus(stored.status());
            stored.headers().forEach((name, values) -> {
                for (int i = 0; i < values.size(); i++) {
                    if (i == 0) {
                        response.setHeader(name, values.get(i));
                    } else {
                        response.addHeader(name, values.get(i));
                    }
                }
            });
            extraHeaders.forEach(response::setHeader);
            int length = stored.bodyLength();
            response.setContentLength(length);
            if (length > 0) {
                OutputStream out = response.getOutputStream();
                stored.writeBody(out);
                out.flush();
            }
        }
    }
}
