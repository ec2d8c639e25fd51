package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.spring.webflux.IdempotencyWebFilter;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebHandler;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The servlet filter's HTTP contract run against {@link IdempotencyWebFilter} on Reactor Netty:
 * the same status table, replays and races as {@link ServletFilterTest}, with an application
 * that answers asynchronously (its blocking part on Reactor's bounded-elastic scheduler, never
 * on the event loop) behind a filter that puts the {@code X-User} header in the exchange's principal.
 */
class WebFluxFilterContractTest extends AbstractHttpContract {
    private static final TestHandler HANDLER = new TestHandler();
    private static final SwitchableStore STORE = newStore();
    /** Threads the idem filter ran on when it handed the request to the application, per request. */
    private static final Set<String> FILTER_THREADS = ConcurrentHashMap.newKeySet();
    private static DisposableServer server;
    private static Http http;

    // Binding Reactor Netty's first server loads and starts its event loops: on a machine loaded
    // by other builds that alone took over 30 s (the module's default limit), so it gets two minutes.
    @BeforeAll
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    static void start() {
        IdempotencyEngine engine = engine(STORE);
        Map<String, WebFilter> filters = Map.of(
                "/api/", new IdempotencyWebFilter(config(engine)),
                "/anon/", new IdempotencyWebFilter(config(engine)),
                "/custom/", new IdempotencyWebFilter(storeAllConfig(engine)),
                "/final/", new IdempotencyWebFilter(config(finalFailureEngine(STORE))));
        WebFilter byPrefix = (exchange, chain) -> {
            String path = exchange.getRequest().getPath().value();
            return filters.entrySet().stream().filter(e -> path.startsWith(e.getKey())).findFirst()
                    .map(e -> e.getValue().filter(exchange, chain)).orElseGet(() -> chain.filter(exchange));
        };
        var handler = WebHttpHandlerBuilder.webHandler(app()).filters(f -> f.addAll(List.of(authentication(),
                byPrefix))).build();
        server = HttpServer.create().host("127.0.0.1").port(0).handle(new ReactorHttpHandlerAdapter(handler))
                .bindNow(Duration.ofSeconds(120));
        http = new Http("http://127.0.0.1:" + server.port());
    }

    @AfterAll
    static void stop() {
        server.disposeNow();
    }

    /** Stands in for Spring Security: the X-User header becomes the exchange's principal. */
    private static WebFilter authentication() {
        return (exchange, chain) -> {
            String user = exchange.getRequest().getHeaders().getFirst("X-User");
            if (user == null) {
                return chain.filter(exchange);
            }
            Principal principal = () -> user;
            return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
        };
    }

    private static WebHandler app() {
        return exchange -> {
            FILTER_THREADS.add(Thread.currentThread().getName());
            String path = exchange.getRequest().getPath().value();
            if (path.endsWith("/status-error")) {
                HANDLER.executions.computeIfAbsent(path, k -> new AtomicInteger()).incrementAndGet();
                return Mono.error(new ResponseStatusException(HttpStatus.NOT_FOUND, "no such charge"));
            }
            return DataBufferUtils.join(exchange.getRequest().getBody()).map(WebFluxFilterContractTest::bytes)
                    .defaultIfEmpty(new byte[0])
                    // The test handler blocks (the slow route waits on a latch): never on the event loop.
                    .publishOn(Schedulers.boundedElastic())
                    .map(body -> handle(exchange, path, body))
                    .flatMap(reply -> write(exchange, reply));
        };
    }

    private static TestHandler.Reply handle(ServerWebExchange exchange, String path, byte[] body) {
        try {
            return HANDLER.handle(exchange.getRequest().getMethod().name(), path,
                    String.valueOf(exchange.getRequest().getHeaders().getFirst("Idempotency-Key")), body,
                    exchange.getAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Mono<Void> write(ServerWebExchange exchange, TestHandler.Reply reply) {
        ServerHttpResponse response = exchange.getResponse();
        response.setRawStatusCode(reply.status());
        if (reply.contentType() != null) {
            response.getHeaders().set("Content-Type", reply.contentType());
        }
        reply.headers().forEach(response.getHeaders()::set);
        if (reply.body().length == 0 || exchange.getRequest().getMethod().name().equals("HEAD")) {
            return response.setComplete();
        }
        return response.writeWith(Mono.just(response.bufferFactory().wrap(reply.body())));
    }

    private static byte[] bytes(DataBuffer buffer) {
        byte[] bytes = new byte[buffer.readableByteCount()];
        buffer.read(bytes);
        DataBufferUtils.release(buffer);
        return bytes;
    }

    @Test
    void anErrorWithAStatusIsTheHandlersAnswerAndIsStoredWhenThePolicySaysSo() throws Exception {
        String key = key();
        HttpResponse<byte[]> a = http.post("/api/status-error", "{}", "Idempotency-Key", key, "X-User", "alice");
        HttpResponse<byte[]> b = http.post("/api/status-error", "{}", "Idempotency-Key", key, "X-User", "alice");

        assertThat(a.statusCode()).isEqualTo(404);
        assertThat(a.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(Http.text(a)).contains("no such charge");
        assertThat(b.statusCode()).isEqualTo(404);
        assertThat(b.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(b.body()).isEqualTo(a.body());
        assertThat(HANDLER.executions.get("/api/status-error").get()).isEqualTo(1);
    }

    @Test
    void theApplicationIsReachedFromTheEventLoopNotFromABlockedPoolThread() throws Exception {
        http.post("/api/charges", "{}", "Idempotency-Key", key(), "X-User", "alice");

        // Store calls run on the engine's executor; the chain resumes on whatever completed them,
        // never on a thread parked for the request. Netty's loop or the engine's executor only.
        assertThat(FILTER_THREADS).isNotEmpty().allSatisfy(name -> assertThat(name)
                .doesNotContain("boundedElastic"));
    }

    @Override
    Http http() {
        return http;
    }

    @Override
    TestHandler handler() {
        return HANDLER;
    }

    @Override
    SwitchableStore store() {
        return STORE;
    }
}
