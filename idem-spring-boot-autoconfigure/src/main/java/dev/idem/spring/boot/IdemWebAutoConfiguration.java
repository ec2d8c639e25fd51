package dev.idem.spring.boot;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.ResponseFilter;
import dev.idem.http.IdempotencyServletFilter;
import dev.idem.http.PrincipalResolver;
import dev.idem.spring.CallObserver;
import dev.idem.spring.IdemConfigurationException;
import dev.idem.spring.IdempotencyExceptionHandler;
import dev.idem.spring.RoutePatterns;
import dev.idem.spring.SpringHandlerExecution;
import dev.idem.spring.SpringRoutes;
import dev.idem.spring.TransactionalExecutor;
import jakarta.servlet.Filter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.function.support.RouterFunctionMapping;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;

/**
 * The Idempotency-Key servlet filter for {@code idem.http.routes} (Spring path patterns,
 * checked at startup), ordered just after Spring Security's filter chain
 * ({@code idem.http.order}), so the caller is known; and the {@code ProblemDetail} answers for
 * {@code @Idempotent} methods ({@link IdempotencyExceptionHandler}).
 *
 * <p>The key's scope is the shared {@link PrincipalResolver} bean (the authenticated user, else
 * the hashed {@code idem.http.principal-header}); a request without a principal gets 401. A
 * covered request's record is keyed by its path in one canonical spelling; its metrics and spans
 * are named after the route Spring MVC matched ({@link SpringRoutes}). Bodies larger than
 * {@code idem.max-request-bytes} get 413. Handlers on {@code idem.http.transactional-routes} (or
 * all, with {@code idem.http.transactional}) run in the JDBC transactional mode
 * ({@link SpringHandlerExecution}). An application {@link HttpIdempotency} bean replaces the
 * whole HTTP configuration.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({Filter.class, IdempotencyServletFilter.class, FilterRegistrationBean.class, DispatcherServlet.class})
@ConditionalOnBean(IdempotencyEngine.class)
public class IdemWebAutoConfiguration {
    /** Created by Spring. */
    public IdemWebAutoConfiguration() {
    }

    /**
     * The HTTP contract, from {@code idem.http.*} and {@code idem.max-request-bytes}.
     *
     * @param engine the engine
     * @param properties the settings
     * @param principals the scoping rule
     * @param handlerMappings Spring MVC's handler mappings, looked up on the first request
     * @param transactional the JDBC transactional mode, when available
     * @param observer the instrumentation, when available
     * @param responseFilter what of a response is stored, if the application defines one
     * @return the configuration the filter applies
     * @throws IdemConfigurationException if a route is not a Spring path pattern, or a transactional
     *     route is configured while the transactional mode cannot run (no JDBC store, DataSource or
     *     transaction manager)
     */
    @Bean
    @ConditionalOnMissingBean
    public HttpIdempotency httpIdempotency(IdempotencyEngine engine, IdemProperties properties,
            PrincipalResolver principals, ObjectProvider<HandlerMapping> handlerMappings,
            ObjectProvider<TransactionalExecutor> transactional, ObjectProvider<CallObserver> observer,
            ObjectProvider<ResponseFilter> responseFilter) {
        IdemProperties.Http http = properties.http();
        SpringRoutes routes = SpringRoutes.of("idem.http.routes", http.routes(),
                () -> handlerMappings.orderedStream().filter(IdemWebAutoConfiguration::servesEndpoints)
                        .collect(Collectors.toList()));
        List<org.springframework.web.util.pattern.PathPattern> transactionalRoutes =
                RoutePatterns.parse("idem.http.transactional-routes", http.transactionalRoutes());
        if (http.transactional() || !transactionalRoutes.isEmpty()) {
            TransactionalExecutor executor = transactional.getIfAvailable();
            Optional<String> missing = executor == null
                    ? Optional.of("idem-store-jdbc or spring-jdbc is not on the class path") : executor.unavailable();
            if (missing.isPresent()) {
                String property = "idem.http.transactional" + (http.transactional() ? "" : "-routes");
                throw new IdemConfigurationException(property, property + " asks for the JDBC transactional mode "
                        + "(the handler's writes and the stored response in one database transaction), which "
                        + "cannot run here: " + missing.get() + ". Every covered request would fail.",
                        "Use the JDBC store (idem-store-jdbc over the application's DataSource, idem.store.kind=jdbc "
                                + "or auto) with a unique DataSource and transaction manager, or remove " + property
                                + ".");
            }
        }
        boolean keyRequired = http.keyRequired();
        HttpIdempotency.Builder b = HttpIdempotency.builder(engine)
                .methods(http.methods().toArray(new String[0]))
                .routes(routes)
                .principals(principals)
                .keyRequired(route -> keyRequired)
                .maxBodyBytes(properties.maxRequestBytes())
                .execution(new SpringHandlerExecution(engine, transactional, observer, http.transactional(),
                        transactionalRoutes));
        responseFilter.ifUnique(b::responseFilter);
        return b.build();
    }

    /** Annotated controllers and functional endpoints; not static resources, which match everything. */
    private static boolean servesEndpoints(HandlerMapping mapping) {
        return mapping instanceof RequestMappingInfoHandlerMapping
                || mapping instanceof RouterFunctionMapping;
    }

    /**
     * The filter registration, on every request of the application (the routes decide what it
     * covers); disabled while {@code idem.http.routes} is empty, so nothing is covered by accident.
     *
     * @param config the HTTP contract
     * @param properties the settings
     * @return the registration
     */
    @Bean
    public FilterRegistrationBean<IdempotencyServletFilter> idempotencyFilterRegistration(HttpIdempotency config,
            IdemProperties properties) {
        FilterRegistrationBean<IdempotencyServletFilter> registration =
                new FilterRegistrationBean<>(new IdempotencyServletFilter(config));
        registration.setName("idempotencyFilter");
        registration.setOrder(properties.http().order());
        registration.setEnabled(!properties.http().routes().isEmpty());
        registration.addUrlPatterns("/*");
        return registration;
    }

    /**
     * Refuses at startup a route that covers nothing Spring MVC serves.
     *
     * @param properties the settings
     * @param handlerMappings Spring MVC's handler mappings
     * @param routerFunctions Spring MVC's functional endpoints, whose routes cannot be listed
     * @return the check, run once every singleton exists
     */
    @Bean
    static IdemRouteCheck idemRouteCheck(ObjectProvider<IdemProperties> properties,
            ObjectProvider<RequestMappingInfoHandlerMapping> handlerMappings,
            ObjectProvider<RouterFunctionMapping> routerFunctions) {
        return new IdemRouteCheck(properties, handlerMappings, routerFunctions);
    }

    /**
     * idem's exceptions through {@code @Idempotent} methods as {@code ProblemDetail} answers.
     *
     * @return the advice
     */
    @Bean
    @ConditionalOnMissingBean
    public IdempotencyExceptionHandler idempotencyExceptionHandler() {
        return new IdempotencyExceptionHandler(Duration.ofSeconds(1));
    }
}
