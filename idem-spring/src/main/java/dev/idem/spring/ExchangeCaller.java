package dev.idem.spring;

import dev.idem.http.IncomingRequest;
import dev.idem.http.PrincipalResolver;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import reactor.core.publisher.Mono;

/**
 * The caller of a {@code Mono} {@link Idempotent} method by the filter's rule, read from the WebFlux
 * request of the subscriber's context ({@link ServerWebExchangeContextFilter}, which the starter
 * registers): the configured principal header's scope, as the WebFlux filter keys it. Asked after
 * Spring Security's reactive user (an authenticated user beats the header, as in the filter).
 * Loaded only with Spring WebFlux and Reactor.
 */
final class ExchangeCaller {
    private ExchangeCaller() {
    }

    static Mono<String> of(PrincipalResolver principals) {
        return Mono.deferContextual(context -> Mono.justOrEmpty(ServerWebExchangeContextFilter.getExchange(context))
                .flatMap(exchange -> Mono.justOrEmpty(principals.scope(new Headers(exchange.getRequest()))
                        .filter(scope -> !scope.isEmpty()))));
    }

    /** The request as the resolver sees it; its authenticated user was asked for already. */
    private record Headers(ServerHttpRequest request) implements IncomingRequest {
        @Override
        public String method() {
            return request.getMethod().name();
        }

        @Override
        public String path() {
            return request.getPath().value();
        }

        @Override
        public String query() {
            String query = request.getURI().getRawQuery();
            return query == null ? "" : query;
        }

        @Override
        public List<String> headers(String name) {
            List<String> values = new ArrayList<>();
            // HttpHeaders' per-name getters changed signature between Spring 6 and 7; forEach did not.
            request.getHeaders().forEach((n, v) -> {
                if (n.equalsIgnoreCase(name)) {
                    values.addAll(v);
                }
            });
            return values;
        }

        @Override
        public Optional<String> authenticatedUser() {
            return Optional.empty();
        }
    }
}
