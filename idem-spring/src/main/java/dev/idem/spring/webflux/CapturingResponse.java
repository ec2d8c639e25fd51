package dev.idem.spring.webflux;

import dev.idem.http.BufferedResponse;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The response a covered handler writes into: status, headers, cookies and body are held, not
 * sent, so the outcome can be stored first. At most {@code maxBytes} of the body are kept: the
 * write that goes past them fails with {@link Oversize} and stops the handler's body (an endless
 * one included), and what was kept, one byte over the store's limit, is still seen as oversize. A
 * streaming write ({@code writeAndFlushWith}, or a streaming content type such as
 * {@code text/event-stream}) fails with {@link Streaming} before its body is subscribed: a
 * stream has no whole outcome to store. Its pre-commit actions run when the handler commits, as on
 * a real response. Not API.
 */
final class CapturingResponse extends ServerHttpResponseDecorator {
    private final HttpHeaders headers = new HttpHeaders();
    private final MultiValueMap<String, ResponseCookie> cookies = new LinkedMultiValueMap<>();
    private final List<Supplier<? extends Mono<Void>>> beforeCommit = new ArrayList<>();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private final int maxBytes;
    private HttpStatusCode status;
    private volatile boolean committed;

    CapturingResponse(ServerHttpResponse delegate, int maxBytes) {
        super(delegate);
        this.maxBytes = maxBytes;
    }

    @Override
    public boolean setStatusCode(HttpStatusCode status) {
        if (committed) {
            return false;
        }
        this.status = status;
        return true;
    }

    @Override
    public boolean setRawStatusCode(Integer status) {
        // The decorator would hand a raw status to the real response, which must stay untouched.
        return status == null ? setNullStatus() : setStatusCode(HttpStatusCode.valueOf(status));
    }

    private boolean setNullStatus() {
        if (committed) {
            return false;
        }
        this.status = null;
        return true;
    }

    @Override
    public HttpStatusCode getStatusCode() {
        return status;
    }

    @Override
    public HttpHeaders getHeaders() {
        return headers;
    }

    @Override
    public MultiValueMap<String, ResponseCookie> getCookies() {
        return cookies;
    }

    @Override
    public void addCookie(ResponseCookie cookie) {
        cookies.add(cookie.getName(), cookie);
    }

    @Override
    public void beforeCommit(Supplier<? extends Mono<Void>> action) {
        beforeCommit.add(action);
    }

    @Override
    public boolean isCommitted() {
        return committed;
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> chunks) {
        return Mono.defer(() -> {
            String streaming = streamingType();
            return streaming != null ? Mono.error(new Streaming(streaming))
                    : commit().thenMany(Flux.from(chunks)).concatMap(this::keep).then();
        });
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> chunks) {
        // Spring writes with a flush per part only what it streams.
        return Mono.error(() -> new Streaming(String.valueOf(headers.getContentType())));
    }

    /** The content type if it is a streaming one, else null. */
    private String streamingType() {
        MediaType type = headers.getContentType();
        return IdempotencyWebFilter.isStreaming(type) ? type.toString() : null;
    }

    @Override
    public Mono<Void> setComplete() {
        return commit();
    }

    private Mono<Void> commit() {
        return Mono.defer(() -> {
            if (committed) {
                return Mono.empty();
            }
            committed = true;
            return Flux.fromIterable(beforeCommit).concatMap(Supplier::get).then();
        });
    }

    /** Keeps what fits; past {@code maxBytes} it fails, which cancels the rest of the body. */
    private synchronized Mono<Void> keep(DataBuffer buffer) {
        try {
            int n = buffer.readableByteCount();
            int room = (int) Math.max(0, Math.min(n, maxBytes - (long) body.size()));
            byte[] bytes = new byte[n];
            buffer.read(bytes);
            body.write(bytes, 0, room);
            return room < n ? Mono.error(new Oversize()) : Mono.empty();
        } finally {
            DataBufferUtils.release(buffer);
        }
    }

    /** The response as written so far (200 if no status was set). */
    synchronized BufferedResponse captured() {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        headers.forEach((name, values) -> copy.put(name, List.copyOf(values)));
        // The cap is one byte over what the store holds, so a body cut short here is still refused as too large.
        return new BufferedResponse(status == null ? 200 : status.value(), copy, body.toByteArray());
    }

    /** The cookies the handler set, for its own (first) response; never stored. */
    MultiValueMap<String, ResponseCookie> cookies() {
        return cookies;
    }

    /** The handler's body went past what the store can hold; what was kept is {@link #captured()}. */
    static final class Oversize extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Oversize() {
            super("the response is larger than the store can hold", null, false, false);
        }
    }

    /** The handler streams its response (server-sent events, NDJSON): there is no whole outcome to store. */
    static final class Streaming extends RuntimeException {
        private static final long serialVersionUID = 1L;
        /** The streaming content type. */
        private final String contentType;

        Streaming(String contentType) {
            super("the handler streams its response (" + contentType + ")", null, false, false);
            this.contentType = contentType;
        }

        String contentType() {
            return contentType;
        }
    }
}
