package dev.idem.spring.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.AsyncWork;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.http.HandlerExecution;
import dev.idem.http.HttpIdempotency;
import dev.idem.spring.SpringPrincipals;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * {@link IdempotencyWebFilter} in a Spring WebFlux application on Reactor Netty: routes named
 * after the pattern WebFlux matched, requests their handler refuses (405, 406, 415) passed
 * through with nothing stored, and the scope rule of the servlet side (Spring Security's
 * reactive context, then the exchange principal, then the hashed principal header).
 */
class WebFluxRoutesAndScopeTest {
    private static final List<String> ROUTES = new CopyOnWriteArrayList<>();
    private static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();
    private static AnnotationConfigApplicationContext context;
    private static DisposableServer server;
    private static IdempotencyEngine engine;
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @RestController
    static class Orders {
        @PostMapping("/orders/{id}/confirm")
        Mono<String> confirm(@PathVariable String id, ServerWebExchange exchange) {
            ExecutionContext ctx = exchange.getAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE);
            int n = RUNS.computeIfAbsent(ctx.key().scope() + id, k -> new AtomicInteger()).incrementAndGet();
            return Mono.just("confirmed " + id + " for " + ctx.key().scope() + " run " + n);
        }

        @GetMapping("/orders/{id}/view")
        Mono<String> view(@PathVariable String id) {
            return Mono.just("order " + id);
        }

        @PostMapping(path = "/orders/{id}/typed", consumes = "application/json")
        Mono<String> typed(@PathVariable String id) {
            RUNS.computeIfAbsent("typed", k -> new AtomicInteger()).incrementAndGet();
            return Mono.just("typed");
        }

        @PostMapping(path = "/orders/{id}/json", produces = "application/json")
        Mono<String> json(@PathVariable String id) {
            RUNS.computeIfAbsent("json", k -> new AtomicInteger()).incrementAndGet();
            return Mono.just("{}");
        }
    }

    @Configuration
    @EnableWebFlux
    static class App {
        @Bean
        Orders orders() {
            return new Orders();
        }

        /** Stands in for Spring Security's chain: X-User as the security context, X-Principal as the exchange's. */
        @Bean
        @Order(-100)
        WebFilter security() {
            return (exchange, chain) -> {
                String principal = exchange.getRequest().getHeaders().getFirst("X-Principal");
                ServerWebExchange e = principal == null ? exchange
                        : exchange.mutate().principal(Mono.just((Principal) () -> principal)).build();
                String user = exchange.getRequest().getHeaders().getFirst("X-User");
                if (user == null) {
                    return chain.filter(e);
                }
                var auth = user.equals("anonymous")
                        ? new AnonymousAuthenticationToken("k", "anonymousUser", AuthorityUtils.createAuthorityList("A"))
                        : new TestingAuthenticationToken(user, "n/a", "ROLE_USER");
                return chain.filter(e).contextWrite(ReactiveSecurityContextHolder.withAuthentication(auth));
            };
        }

        @Bean
        IdempotencyWebFilter idempotencyWebFilter(org.springframework.context.ApplicationContext ctx) {
            HandlerExecution recording = new HandlerExecution() {
                private final HandlerExecution delegate = HandlerExecution.engine(engine);

                @Override
                public <T> Result<T> execute(Call call, Class<T> type, Work<? extends T> work) {
                    throw new AssertionError("a reactive server never runs the blocking call");
                }

                @Override
                public <T> CompletableFuture<Result<T>> executeAsync(Call call, Class<T> type,
                        AsyncWork<? extends T> work) {
                    ROUTES.add(call.operationName());
                    return delegate.executeAsync(call, type, work);
                }
            };
            SpringWebFluxRoutes routes = SpringWebFluxRoutes.of("idem.http.routes", List.of("/orders/**"),
                    () -> List.copyOf(ctx.getBeansOfType(HandlerMapping.class).values()));
            return new IdempotencyWebFilter(HttpIdempotency.builder(engine).routes(routes)
                    .principals(SpringPrincipals.standard("X-Api-Key")).execution(recording).build());
        }
    }

    @BeforeAll
    static void start() {
        engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).lease(Duration.ofSeconds(10))
                .ttl(Duration.ofHours(1)).build();
        context = new AnnotationConfigApplicationContext(App.class);
        var handler = WebHttpHandlerBuilder.applicationContext(context).build();
        server = HttpServer.create().host("127.0.0.1").port(0).handle(new ReactorHttpHandlerAdapter(handler))
                .bindNow();
    }

    @AfterAll
    static void stop() {
        server.disposeNow();
        context.close();
        engine.close();
    }

    private static HttpResponse<String> post(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).timeout(Duration.ofSeconds(20));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aCoveredRequestIsNamedAfterThePatternWebFluxMatchedAndReplayed() throws Exception {
        String key = UUID.randomUUID().toString();
        ROUTES.clear();
        HttpResponse<String> a = post("/orders/7/confirm", "Idempotency-Key", key, "X-User", "alice");
        HttpResponse<String> b = post("/orders/7/confirm", "Idempotency-Key", key, "X-User", "alice");

        assertThat(a.statusCode()).isEqualTo(200);
        assertThat(a.body()).isEqualTo("confirmed 7 for alice run 1");
        assertThat(a.headers().firstValue("Idempotency-Status")).hasValue("stored");
        assertThat(b.body()).isEqualTo(a.body());
        assertThat(b.headers().firstValue("Idempotency-Status")).hasValue("replayed");
        assertThat(ROUTES).containsOnly("POST /orders/{id}/confirm");
    }

    @ParameterizedTest
    @CsvSource({"/orders/1/view,,405", "/orders/1/typed,text/plain,415", "/orders/1/json,,406"})
    void requestsTheHandlerRefusesPassThroughWithNothingStored(String path, String contentType, int status)
            throws Exception {
        String key = UUID.randomUUID().toString();
        ROUTES.clear();
        HttpResponse<String> a = post(path, "Idempotency-Key", key, "X-User", "alice", "Content-Type",
                contentType == null ? "application/json" : contentType, "Accept",
                status == 406 ? "text/plain" : "*/*");

        assertThat(a.statusCode()).isEqualTo(status);
        assertThat(a.headers().firstValue("Idempotency-Status")).isEmpty();
        assertThat(ROUTES).isEmpty();
        assertThat(RUNS).doesNotContainKeys("typed", "json");
    }

    @Test
    void theSecurityUserBeatsTheExchangePrincipalWhichBeatsTheHashedHeader() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> security = post("/orders/8/confirm", "Idempotency-Key", key, "X-User", "bob",
                "X-Principal", "mallory", "X-Api-Key", "k1");
        HttpResponse<String> principal = post("/orders/8/confirm", "Idempotency-Key", key, "X-User", "anonymous",
                "X-Principal", "carol", "X-Api-Key", "k1");
        HttpResponse<String> header = post("/orders/8/confirm", "Idempotency-Key", key, "X-Api-Key", "k1");
        HttpResponse<String> nobody = post("/orders/8/confirm", "Idempotency-Key", key, "X-User", "anonymous");

        assertThat(security.body()).isEqualTo("confirmed 8 for bob run 1");
        // Spring Security's anonymous user names nobody: the exchange's principal decides.
        assertThat(principal.body()).isEqualTo("confirmed 8 for carol run 1");
        assertThat(header.body()).startsWith("confirmed 8 for api-key:").doesNotContain("k1");
        assertThat(nobody.statusCode()).isEqualTo(401);
    }
}
