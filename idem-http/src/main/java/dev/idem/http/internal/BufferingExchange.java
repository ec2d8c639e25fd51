package dev.idem.http.internal;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The exchange a JDK-server handler sees under the filter: the request body comes from the
 * buffer, and the status, headers and body it sends are captured instead of written, so
 * the response can be stored before any byte reaches the client. Not API.
 */
public final class BufferingExchange extends HttpExchange {
    private final HttpExchange real;
    private final Headers responseHeaders = new Headers();
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();
    private InputStream in;
    private OutputStream out;
    private final CappedBuffer body;
    private int status = -1;

    /**
     * Wraps {@code real}, serving {@code requestBody} as the request body and keeping at most
     * {@code maxBodyBytes} of the response body (see {@link CappedBuffer}).
     */
    public BufferingExchange(HttpExchange real, byte[] requestBody, int maxBodyBytes) {
        this.real = real;
        this.body = new CappedBuffer(maxBodyBytes);
        this.in = new ByteArrayInputStream(requestBody);
        this.out = body;
    }

    /**
     * The captured response.
     *
     * @throws IllegalStateException if the handler never sent response headers
     */
    public StoredResponse captured() {
        if (status < 0) {
            throw new IllegalStateException("the handler returned without sending a response");
        }
        try {
            out.flush();
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot flush the buffered response", e);
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        responseHeaders.forEach((name, values) -> {
            if (!name.equalsIgnoreCase("Content-Length") && !name.equalsIgnoreCase("Transfer-Encoding")) {
                headers.put(name, values);
            }
        });
        return new StoredResponse(status, headers, body.toByteArray());
    }

    @Override
    public Headers getRequestHeaders() {
        return real.getRequestHeaders();
    }

    @Override
    public Headers getResponseHeaders() {
        return responseHeaders;
    }

    @Override
    public URI getRequestURI() {
        return real.getRequestURI();
    }

    @Override
    public String getRequestMethod() {
        return real.getRequestMethod();
    }

    @Override
    public HttpContext getHttpContext() {
        return real.getHttpContext();
    }

    @Override
    public void close() {
        // The real exchange is closed by the filter once the response is decided.
    }

    @Override
    public InputStream getRequestBody() {
        return in;
    }

    @Override
    public OutputStream getResponseBody() {
        return out;
    }

    @Override
    public void sendResponseHeaders(int rCode, long responseLength) {
        if (status >= 0) {
            throw new IllegalStateException("response headers already sent");
        }
        if (rCode < 100 || rCode > 999) {
            throw new IllegalArgumentException("status must be a three-digit code but was " + rCode);
        }
        status = rCode;
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
        return real.getRemoteAddress();
    }

    @Override
    public int getResponseCode() {
        return status;
    }

    @Override
    public InetSocketAddress getLocalAddress() {
        return real.getLocalAddress();
    }

    @Override
    public String getProtocol() {
        return real.getProtocol();
    }

    @Override
    public Object getAttribute(String name) {
        Object mine = attributes.get(name);
        return mine != null ? mine : real.getAttribute(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        // Kept per exchange: older JDKs share exchange attributes across a whole context.
        if (value == null) {
            attributes.remove(name);
        } else {
            attributes.put(name, value);
        }
    }

    @Override
    public void setStreams(InputStream i, OutputStream o) {
        if (i != null) {
            in = i;
        }
        if (o != null) {
            out = o;
        }
    }

    @Override
    public HttpPrincipal getPrincipal() {
        return real.getPrincipal();
    }
}
