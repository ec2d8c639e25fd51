package dev.idem.spring.boot.it;

import dev.idem.spring.Idempotent;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The reactive application of the shared Boot suite: Spring WebFlux on Reactor Netty behind
 * Spring Security's WebFlux chain (HTTP Basic for alice and bob), the memory store, a route the
 * filter covers and {@code @Idempotent} controller methods that return a {@code Mono}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"})
@Import(ReactiveBootApp.Payments.class)
public class ReactiveBootApp {
    /** How often each handler ran, per key. */
    static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

    static int runs(String what) {
        AtomicInteger n = RUNS.get(what);
        return n == null ? 0 : n.get();
    }

    private static int run(String what) {
        return RUNS.computeIfAbsent(what, k -> new AtomicInteger()).incrementAndGet();
    }

    @Bean
    MemoryIdempotencyStore idempotencyStore() {
        return MemoryIdempotencyStore.create();
    }

    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http) {
        return http.authorizeExchange(a -> a.anyExchange().authenticated())
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

    /** A payment, as a reactive service returns it. */
    public record Payment(String ref, String id, int run) {
    }

    /** Reactive endpoints. */
    @RestController
    public static class Payments {
        /**
         * The case: a {@code Mono} from an {@code @Idempotent} method.
         *
         * @param ref the client's reference, the key
         * @return the payment
         */
        @Idempotent(operation = "mono-pay", key = "#ref")
        @PostMapping("/mono-payments/{ref}")
        @ResponseStatus(HttpStatus.CREATED)
        public Mono<Payment> pay(@PathVariable("ref") String ref) {
            return Mono.fromSupplier(() -> new Payment(ref, UUID.randomUUID().toString(), run("mono " + ref)));
        }

        /**
         * Fails the first time: the key is released, the retry runs.
         *
         * @param ref the key
         * @return the payment
         */
        @Idempotent(operation = "mono-flaky", key = "#ref")
        @PostMapping("/mono-flaky/{ref}")
        @ResponseStatus(HttpStatus.CREATED)
        public Mono<Payment> flaky(@PathVariable("ref") String ref) {
            return Mono.defer(() -> {
                int run = run("flaky " + ref);
                return run == 1 ? Mono.error(new IllegalStateException("the gateway timed out"))
                        : Mono.just(new Payment(ref, UUID.randomUUID().toString(), run));
            });
        }

        /**
         * A route the WebFilter covers.
         *
         * @param id the order
         * @return the confirmation
         */
        @PostMapping("/orders/{id}/confirm")
        @ResponseStatus(HttpStatus.CREATED)
        public Mono<Map<String, Object>> confirm(@PathVariable("id") String id) {
            return Mono.fromSupplier(() -> Map.of("order", id, "confirmation", UUID.randomUUID().toString(),
                    "run", run("order " + id)));
        }
    }
}
