package dev.idem.spring.boot.webflux;

import dev.idem.spring.Idempotent;
import java.security.Principal;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * A reactive application as a user writes it from the starter's README: Spring WebFlux on
 * Reactor Netty behind Spring Security's WebFlux chain (HTTP Basic for alice and bob; /open/**
 * anonymous and scoped by the X-Api-Key header), the actuator's meters, routes the
 * Idempotency-Key filter covers, and {@code @Idempotent} service methods returning a
 * {@code Mono}, a {@code CompletionStage}, a {@code CompletableFuture} and a plain value.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ReactiveApp.Orders.class, ReactiveApp.Notes.class, ReactiveApp.Charges.class, ReactiveApp.ChargeService.class,
        ReactiveApp.Events.class, ReactiveApp.AnonymousCharges.class})
public class ReactiveApp {
    /** How often each handler ran, per name. */
    static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();
    /** Handlers a test holds until it says so, per name. */
    static final Map<String, Sinks.Empty<Void>> HELD = new ConcurrentHashMap<>();
    /** How many endless streams were subscribed, and how many of them ended (cancelled). */
    static final AtomicInteger STREAMS_STARTED = new AtomicInteger();
    static final AtomicInteger STREAMS_ENDED = new AtomicInteger();

    static int runs(String what) {
        AtomicInteger n = RUNS.get(what);
        return n == null ? 0 : n.get();
    }

    /** Counts a run of {@code what}; completes when a test holding it lets it go (at once if none does). */
    static Mono<Integer> run(String what) {
        int n = RUNS.computeIfAbsent(what, k -> new AtomicInteger()).incrementAndGet();
        Sinks.Empty<Void> held = HELD.get(what);
        return held == null ? Mono.just(n) : held.asMono().thenReturn(n);
    }

    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
        return http.authorizeExchange(a -> a.pathMatchers("/open/**", "/anon/**", "/actuator/**").permitAll()
                        .anyExchange().authenticated())
                .httpBasic(Customizer.withDefaults())
                .csrf(c -> c.disable())
                .build();
    }

    @Bean
    MapReactiveUserDetailsService users() {
        return new MapReactiveUserDetailsService(
                User.withUsername("alice").password("{noop}pw").roles("USER").build(),
                User.withUsername("bob").password("{noop}pw").roles("USER").build());
    }

    /** A route with a variable, covered by the filter: one metric series, one record per order. */
    @RestController
    public static class Orders {
        /**
         * Confirms an order.
         *
         * @param id the order
         * @return the confirmation
         */
        @PostMapping("/orders/{id}/confirm")
        @ResponseStatus(HttpStatus.CREATED)
        public Mono<Map<String, Object>> confirm(@PathVariable("id") String id) {
            return run("order " + id).map(run -> Map.of("order", id, "confirmation", UUID.randomUUID().toString(),
                    "run", run));
        }
    }

    /** An anonymous route covered by the filter, scoped by the API-key header. */
    @RestController
    public static class Notes {
        /**
         * Files a note.
         *
         * @param body the note
         * @return the filed note
         */
        @PostMapping(value = "/open/notes", consumes = MediaType.APPLICATION_JSON_VALUE)
        @ResponseStatus(HttpStatus.CREATED)
        public Mono<Map<String, Object>> note(@RequestBody Map<String, Object> body) {
            return run("note " + body.get("text")).map(run -> Map.of("note", UUID.randomUUID().toString(),
                    "text", String.valueOf(body.get("text")), "run", run));
        }
    }

    /** A covered route whose handler streams without end, as a server-sent-event feed does. */
    @RestController
    public static class Events {
        /**
         * An endless feed whose type does not say it streams (the client's Accept header decides).
         *
         * @return the events, one every 10 ms, forever
         */
        @PostMapping("/feeds/ticks")
        public Flux<Map<String, Object>> ticks() {
            return Flux.interval(Duration.ofMillis(10)).map(i -> Map.<String, Object>of("tick", i))
                    .doOnSubscribe(s -> STREAMS_STARTED.incrementAndGet())
                    .doFinally(s -> STREAMS_ENDED.incrementAndGet());
        }

        /**
         * An endless JSON array of 4 KiB elements, as fast as it can be written.
         *
         * @return the ticks, forever
         */
        @PostMapping("/feeds/everything")
        public Flux<Map<String, Object>> everything() {
            String padding = "x".repeat(4096);
            return Flux.<Map<String, Object>, Long>generate(() -> 0L, (n, sink) -> {
                sink.next(Map.of("tick", n, "padding", padding));
                return n + 1;
            }).doOnSubscribe(s -> STREAMS_STARTED.incrementAndGet()).doFinally(s -> STREAMS_ENDED.incrementAndGet());
        }
    }

    /** A charge request; the reference is the client's key. */
    public record ChargeRequest(String reference, long amount) {
    }

    /** A charge. */
    public record Charge(String id, String reference, long amount, String kind) {
    }

    /** Not covered by the filter: {@code @Idempotent} alone decides, on each return type. */
    @RestController
    public static class Charges {
        private final ChargeService charges;

        Charges(ChargeService charges) {
            this.charges = charges;
        }

        /**
         * The caller is found in Spring Security's reactive context when the Mono is subscribed.
         *
         * @param request the charge
         * @return the charge
         */
        @PostMapping("/charges/mono")
        @ResponseStatus(HttpStatus.CREATED)
        public Mono<Charge> mono(@RequestBody ChargeRequest request) {
            return charges.mono(request);
        }

        /**
         * A stage, scoped by the principal WebFlux hands the controller.
         *
         * @param caller the authenticated caller
         * @param request the charge
         * @return the charge
         */
        @PostMapping("/charges/stage")
        @ResponseStatus(HttpStatus.CREATED)
        public CompletionStage<Charge> stage(Principal caller, @RequestBody ChargeRequest request) {
            return charges.stage(caller, request);
        }

        /**
         * A future, scoped the same way.
         *
         * @param caller the authenticated caller
         * @param request the charge
         * @return the charge
         */
        // tag::controller[]
        @PostMapping("/charges/future")
        @ResponseStatus(HttpStatus.CREATED)
        public CompletableFuture<Charge> future(Principal caller, @RequestBody ChargeRequest request) {
            return charges.future(caller, request);
        }
        // end::controller[]

        /**
         * A blocking method, called off the event loop as a WebFlux application must.
         *
         * @param caller the authenticated caller
         * @param request the charge
         * @return the charge
         */
        @PostMapping("/charges/plain")
        @ResponseStatus(HttpStatus.CREATED)
        public Mono<Charge> plain(Principal caller, @RequestBody ChargeRequest request) {
            return Mono.fromCallable(() -> charges.plain(caller, request)).subscribeOn(Schedulers.boundedElastic());
        }
    }

    /**
     * The same service methods for anonymous callers (not covered by the filter): a {@code Mono}
     * scoped as the filter scopes (here by the X-Api-Key header), and a future whose scope
     * expression names a caller that an anonymous request does not have.
     */
    @RestController
    public static class AnonymousCharges {
        private final ChargeService charges;

        AnonymousCharges(ChargeService charges) {
            this.charges = charges;
        }

        /**
         * Scoped by the filter's rule at subscription.
         *
         * @param request the charge
         * @return the charge
         */
        @PostMapping("/anon/charges/mono")
        @ResponseStatus(HttpStatus.CREATED)
        public Mono<Charge> mono(@RequestBody ChargeRequest request) {
            return charges.mono(request);
        }

        /**
         * Scoped by {@code #caller.name}, with no caller.
         *
         * @param caller null for an anonymous request
         * @param request the charge
         * @return the charge
         */
        @PostMapping("/anon/charges/future")
        @ResponseStatus(HttpStatus.CREATED)
        public CompletableFuture<Charge> future(Principal caller, @RequestBody ChargeRequest request) {
            return charges.future(caller, request);
        }
    }

    /** The service: one method per return type the starter README lists. */
    public static class ChargeService {
        /**
         * Scoped by the subscriber's reactive user.
         *
         * @param request the charge
         * @return the charge
         */
        @Idempotent(operation = "charge-mono", key = "#request.reference")
        public Mono<Charge> mono(ChargeRequest request) {
            return run("mono " + request.reference()).map(run -> charge(request, "mono"));
        }

        /**
         * Scoped by the caller the controller passes.
         *
         * @param caller the caller
         * @param request the charge
         * @return the charge
         */
        @Idempotent(operation = "charge-stage", key = "#request.reference", scope = "#caller.name",
                request = "#request")
        public CompletionStage<Charge> stage(Principal caller, ChargeRequest request) {
            return run("stage " + request.reference()).map(run -> charge(request, "stage")).toFuture();
        }

        /**
         * Scoped by the caller the controller passes.
         *
         * @param caller the caller
         * @param request the charge
         * @return the charge
         */
        // tag::service[]
        @Idempotent(operation = "charge-future", key = "#request.reference", scope = "#caller.name",
                request = "#request")
        public CompletableFuture<Charge> future(Principal caller, ChargeRequest request) {
            return run("future " + request.reference()).map(run -> charge(request, "future")).toFuture();
        }
        // end::service[]

        /**
         * Scoped by the caller the controller passes.
         *
         * @param caller the caller
         * @param request the charge
         * @return the charge
         */
        @Idempotent(operation = "charge-plain", key = "#request.reference", scope = "#caller.name",
                request = "#request")
        public Charge plain(Principal caller, ChargeRequest request) {
            RUNS.computeIfAbsent("plain " + request.reference(), k -> new AtomicInteger()).incrementAndGet();
            return charge(request, "plain");
        }

        private static Charge charge(ChargeRequest request, String kind) {
            return new Charge("ch_" + UUID.randomUUID(), request.reference(), request.amount(), kind);
        }
    }
}
