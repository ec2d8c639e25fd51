package dev.idem.spring.boot;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.PrincipalResolver;
import dev.idem.http.ResponseFilter;
import dev.idem.spring.CallObserver;
import dev.idem.spring.IdemConfigurationException;
import dev.idem.spring.IdempotencyExceptionHandler;
import dev.idem.spring.webflux.IdempotencyWebFilter;
import dev.idem.spring.webflux.SpringWebFluxRoutes;
import dev.idem.spring.webflux.WebFluxHandlerExecution;
import java.time.Duration;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.function.server.support.RouterFunctionMapping;
import org.springframework.web.reactive.result.method.RequestMappingInfoHandlerMapping;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * The Idempotency-Key {@link IdempotencyWebFilter} of a reactive (WebFlux) application, for
 * {@code idem.http.routes}: the servlet filter's contract and settings
 * ({@link IdemWebAutoConfiguration}), ordered by {@code idem.http.order} just after Spring
 * Security's WebFlux chain, so the caller is known. The key's scope is Spring Security's
 * reactive user, else the exchange's principal, else the hashed {@code idem.http.principal-header}
 * (the shared {@link PrincipalResolver} bean); metrics name a covered request after the pattern
 * WebFlux matched ({@link SpringWebFluxRoutes}, {@link WebFluxHandlerExecution}). No handler blocks a
 * thread: the filter runs the engine's asynchronous call. Refused at startup: the JDBC
 * transactional mode (it is for blocking handlers), a route that covers nothing, and a route that
 * covers a handler whose type shows it streams ({@link IdemWebFluxRouteCheck}). Loads no servlet
 * class. An application {@link HttpIdempotency} bean replaces the whole HTTP configuration.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({WebFilter.class, Mono.class, IdempotencyWebFilter.class, HttpIdempotency.class})
@ConditionalOnBean(IdempotencyEngine.class)
public class IdemWebFluxAutoConfiguration {
    /** Created by Spring. */
    public IdemWebFluxAutoConfiguration() {
    }

    /**
     * The HTTP contract, from {@code idem.http.*} and {@code idem.max-request-bytes}.
     *
     * @param engine the engine
     * @param properties the settings
     * @param principals the scoping rule
     * @param handlerMappings WebFlux's handler mappings, looked up on the first request
     * @param observer the instrumentation, when available
     * @param responseFilter what of a response is stored, if the application defines one
     * @return the configuration the filter applies
     * @throws IdemConfigurationException if a route is not a Spring path pattern, or the
     *     transactional mode is asked for (it runs blocking handlers only)
     */
    @Bean
    @ConditionalOnMissingBean
    public HttpIdempotency httpIdempotency(IdempotencyEngine engine, IdemProperties properties,
            PrincipalResolver principals, ObjectProvider<HandlerMapping> handlerMappings,
            ObjectProvider<CallObserver> observer, ObjectProvider<ResponseFilter> responseFilter) {
        IdemProperties.Http http = properties.http();
        if (http.transactional() || !http.transactionalRoutes().isEmpty()) {
            String property = "idem.http.transactional" + (http.transactional() ? "" : "-routes");
            throw new IdemConfigurationException(property, property + " asks for the JDBC transactional mode, "
                    + "which runs blocking Spring MVC handlers in the caller's thread's transaction; a WebFlux "
                    + "handler runs on no such thread.", "Remove " + property + " from a WebFlux application; for "
                    + "the business writes and the stored response in one transaction, use a Spring MVC "
                    + "application, or an @Idempotent(transactional = true) blocking method called off the event "
                    + "loop.");
        }
        SpringWebFluxRoutes routes = SpringWebFluxRoutes.of("idem.http.routes", http.routes(),
                () -> handlerMappings.orderedStream().filter(IdemWebFluxAutoConfiguration::servesEndpoints)
                        .collect(Collectors.toList()));
        boolean keyRequired = http.keyRequired();
        HttpIdempotency.Builder b = HttpIdempotency.builder(engine)
                .methods(http.methods().toArray(new String[0]))
                .routes(routes)
                .principals(principals)
                .keyRequired(route -> keyRequired)
                .maxBodyBytes(properties.maxRequestBytes())
                .execution(new WebFluxHandlerExecution(engine, observer));
        responseFilter.ifUnique(b::responseFilter);
        return b.build();
    }

    /** Annotated controllers and functional endpoints; not static resources, which match everything. */
    private static boolean servesEndpoints(HandlerMapping mapping) {
        return mapping instanceof RequestMappingInfoHandlerMapping
                || mapping instanceof RouterFunctionMapping;
    }

    /**
     * The filter, on every exchange (the routes decide what it covers; none while
     * {@code idem.http.routes} is empty).
     *
     * @param config the HTTP contract
     * @param properties the settings
     * @return the filter
     */
    @Bean
    @ConditionalOnMissingBean
    public IdempotencyWebFilter idempotencyWebFilter(HttpIdempotency config, IdemProperties properties) {
        return new IdempotencyWebFilter(config, properties.http().order());
    }

    /**
     * Puts each exchange in its Reactor context, so that an {@code @Idempotent} method returning a
     * {@code Mono} scopes its caller by the filter's rule: Spring Security's reactive user, else the
     * hashed {@code idem.http.principal-header} of the request it serves.
     *
     * @return the filter
     */
    @Bean
    @ConditionalOnMissingBean
    public ServerWebExchangeContextFilter idemServerWebExchangeContextFilter() {
        return new ServerWebExchangeContextFilter();
    }

    /**
     * Refuses at startup a route that covers nothing WebFlux serves, or a handler whose type shows it streams.
     *
     * @param properties the settings
     * @param handlerMappings WebFlux's annotated handler mappings
     * @param routerFunctions WebFlux's functional endpoints, whose routes cannot be listed
     * @return the check, run once every singleton exists
     */
    @Bean
    static IdemWebFluxRouteCheck idemWebFluxRouteCheck(ObjectProvider<IdemProperties> properties,
            ObjectProvider<RequestMappingInfoHandlerMapping> handlerMappings,
            ObjectProvider<RouterFunctionMapping> routerFunctions) {
        return new IdemWebFluxRouteCheck(properties, handlerMappings, routerFunctions);
    }

    /**
     * idem's exceptions through {@code @Idempotent} controller methods as {@code ProblemDetail} answers.
     *
     * @return the advice
     */
    @Bean
    @ConditionalOnMissingBean
    public IdempotencyExceptionHandler idempotencyExceptionHandler() {
        return new IdempotencyExceptionHandler(Duration.ofSeconds(1));
    }
}
