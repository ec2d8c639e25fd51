package dev.idem.spring.webflux;

import dev.idem.engine.ExecutionContext;
import dev.idem.http.BufferedResponse;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.IdempotencyFlow;
import dev.idem.http.IncomingRequest;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.ClassUtils;
import org.springframework.web.ErrorResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * One WebFlux exchange as the {@link IdempotencyFlow} sees it. Every part of the chain it runs
 * is subscribed with the filter's Reactor context, so what upstream filters put there (Spring
 * Security's context, an observation) reaches the handler. Not API.
 */
final class WebFluxExchange implements IdempotencyFlow.Exchange, IncomingRequest {
    private static final boolean SECURITY = ClassUtils.isPresent(
            "org.springframework.security.core.context.ReactiveSecurityContextHolder", WebFluxExchange.class.getClassLoader());

    private final ServerWebExchange exchange;
    private final WebFilterChain chain;
    private final Optional<String> principal;
    private final ContextView context;
    private volatile CapturingResponse capture;
    private volatile BufferedResponse captured;
    /** What this exchange is running (reading, the handler, sending), cancelled if the client leaves. */
    private final Set<CompletableFuture<?>> running = ConcurrentHashMap.newKeySet();
    private volatile boolean cancelled;

    WebFluxExchange(ServerWebExchange exchange, WebFilterChain chain, Optional<String> principal,
            ContextView context) {
        this.exchange = exchange;
        this.chain = chain;
        this.principal = principal;
        this.context = context;
    }

    /**
     * The caller, by the servlet side's rule: Spring Security's authenticated user (its reactive
     * context), else the exchange's principal; anonymous ones name nobody.
     */
    static Mono<Optional<String>> caller(ServerWebExchange exchange) {
        Mono<String> principal = exchange.getPrincipal().flatMap(p -> Mono.justOrEmpty(nameOf(p)));
        Mono<String> user = SECURITY ? SecurityPrincipals.contextUser().switchIfEmpty(principal) : principal;
        return user.map(Optional::of).defaultIfEmpty(Optional.empty());
    }

    /** The name of an authenticated principal; Spring Security's anonymous one names nobody. */
    static Optional<String> nameOf(Principal principal) {
        if (SECURITY) {
            return SecurityPrincipals.name(principal);
        }
        return Optional.ofNullable(principal.getName()).filter(n -> !n.isEmpty());
    }

    @Override
    public IncomingRequest request() {
        return this;
    }

    @Override
    public String method() {
        return exchange.getRequest().getMethod().name();
    }

    @Override
    public String path() {
        String path = exchange.getRequest().getURI().getRawPath();
        return path == null ? "" : path;
    }

    @Override
    public String query() {
        String query = exchange.getRequest().getURI().getRawQuery();
        return query == null ? "" : query;
    }

    @Override
    public List<String> headers(String name) {
        List<String> values = new ArrayList<>();
        // HttpHeaders' per-name getters changed signature between Spring 6 and 7; forEach did not.
        exchange.getRequest().getHeaders().forEach((n, v) -> {
            if (n.equalsIgnoreCase(name)) {
                values.addAll(v);
            }
        });
        return values;
    }

    @Override
    public Optional<String> authenticatedUser() {
        return principal;
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type.isInstance(exchange)) {
            return Optional.of(type.cast(exchange));
        }
        return type.isInstance(exchange.getRequest()) ? Optional.of(type.cast(exchange.getRequest()))
                : Optional.empty();
    }

    @Override
    public CompletionStage<byte[]> readBody(int limit) {
        return run(DataBufferUtils.join(DataBufferUtils.takeUntilByteCount(exchange.getRequest().getBody(),
                        limit + 1L))
                .map(WebFluxExchange::drain)
                .defaultIfEmpty(new byte[0]));
    }

    /**
     * Subscribes {@code step} with the filter's context, as a future that {@link #cancel()}
     * cancels (and with it the subscription: the handler stops).
     */
    private <T> CompletableFuture<T> run(Mono<T> step) {
        if (cancelled) {
            return CompletableFuture.failedFuture(new IdempotencyFlow.ResponseDropped("the client left"));
        }
        CompletableFuture<T> future = step.contextWrite(context).toFuture();
        running.add(future);
        future.whenComplete((v, e) -> running.remove(future));
        if (cancelled) {
            future.cancel(false);
        }
        return future;
    }

    /**
     * The client left (the server cancelled the filter's subscription): stops whatever this
     * exchange still runs, so a handler stops and the engine frees its slot (a cancelled work
     * stage keeps its claim until the lease lapses, since its effect may have been under way).
     */
    void cancel() {
        cancelled = true;
        for (CompletableFuture<?> f : running) {
            f.cancel(false);
        }
    }

    private static byte[] drain(DataBuffer buffer) {
        try {
            byte[] bytes = new byte[buffer.readableByteCount()];
            buffer.read(bytes);
            return bytes;
        } finally {
            DataBufferUtils.release(buffer);
        }
    }

    @Override
    public CompletionStage<Void> passThrough() {
        return run(chain.filter(exchange));
    }

    @Override
    public CompletionStage<BufferedResponse> proceed(byte[] body, ExecutionContext execution, int maxResponseBytes) {
        ServerHttpRequest request = new ServerHttpRequestDecorator(exchange.getRequest()) {
            @Override
            public Flux<DataBuffer> getBody() {
                return body.length == 0 ? Flux.empty()
                        : Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
            }
        };
        CapturingResponse response = new CapturingResponse(exchange.getResponse(), maxResponseBytes);
        capture = response;
        ServerWebExchange buffered = exchange.mutate().request(request).response(response).build();
        buffered.getAttributes().put(HttpIdempotency.CONTEXT_ATTRIBUTE, execution);
        Mono<BufferedResponse> capturedResponse = Mono.fromSupplier(() -> {
            captured = response.captured();
            return captured;
        });
        return run(chain.filter(buffered)
                .then(capturedResponse)
                // Past the store's limit the handler's body was cut: what was kept is refused as too large.
                .onErrorResume(CapturingResponse.Oversize.class, e -> capturedResponse)
                .onErrorResume(CapturingResponse.Streaming.class, e -> Mono.fromSupplier(() -> streaming(e)))
                // An error with a status (ResponseStatusException, say) is the handler's answer, as a
                // servlet's sendError is: captured, and stored or not by the storage policy.
                .onErrorResume(e -> e instanceof ErrorResponse, e -> Mono.fromSupplier(() -> problem((ErrorResponse) e)))
                .doFinally(s -> buffered.getAttributes().remove(HttpIdempotency.CONTEXT_ATTRIBUTE)));
    }

    /** The answer to a handler that streams on a covered route: a stream has no whole outcome to store. */
    private BufferedResponse streaming(CapturingResponse.Streaming e) {
        String detail = "The handler of " + method() + " " + exchange.getRequest().getPath().value() + " streams its "
                + "response (" + e.contentType() + "), but idem stores a covered response whole before sending it, so "
                + "a stream is never answered. Remove this route from idem.http.routes (streaming responses cannot "
                + "be made idempotent), or answer with a finite body.";
        return problemResponse(500, "streaming-response", "Streaming response on an idempotent route", detail);
    }

    private static BufferedResponse problem(ErrorResponse e) {
        org.springframework.http.ProblemDetail p = e.getBody();
        return problemJson(e.getStatusCode().value(), String.valueOf(p.getType()),
                p.getTitle() == null ? "" : p.getTitle(), p.getDetail());
    }

    private static BufferedResponse problemResponse(int status, String slug, String title, String detail) {
        return problemJson(status, HttpIdempotency.PROBLEM_TYPE_PREFIX + slug, title, detail);
    }

    private static BufferedResponse problemJson(int status, String type, String title, String detail) {
        StringBuilder json = new StringBuilder("{\"type\":").append(quote(type))
                .append(",\"title\":").append(quote(title))
                .append(",\"status\":").append(status);
        if (detail != null) {
            json.append(",\"detail\":").append(quote(detail));
        }
        json.append('}');
        return new BufferedResponse(status, Map.of("Content-Type", List.of("application/problem+json")),
                json.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    @Override
    public CompletionStage<Void> send(BufferedResponse stored, Map<String, String> extraHeaders) {
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatusCode.valueOf(stored.status()));
        HttpHeaders headers = response.getHeaders();
        stored.headers().forEach((name, values) -> headers.put(name, new ArrayList<>(values)));
        extraHeaders.forEach(headers::set);
        CapturingResponse own = capture;
        if (own != null && stored == captured) {
            // The handler's own response keeps its cookies; a replay or a problem carries none.
            own.cookies().forEach((name, cookies) -> cookies.forEach(response::addCookie));
        }
        int length = stored.bodyLength();
        headers.setContentLength(length);
        // A replay's body is a read-only view of the stored outcome: written out, never copied.
        Mono<Void> write = length == 0 ? response.setComplete()
                : response.writeWith(Mono.just(response.bufferFactory().wrap(stored.bodyBuffer())));
        return run(write);
    }
}
