package dev.idem.spring;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.IdempotencyServletFilter;
import dev.idem.http.PrincipalResolver;
import jakarta.servlet.Filter;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * Registers the Idempotency-Key servlet filter for {@code idem.http.routes}, ordered just
 * after Spring Security's filter chain ({@code idem.http.order}), so the caller is known.
 * The key's scope is, in order: a {@link PrincipalResolver} bean of the application; the
 * hashed value of the {@code idem.http.principal-header} API-key header; the authenticated
 * user of Spring Security's context (never the anonymous one) when Spring Security is
 * present; else the servlet's {@code getUserPrincipal()}. A request without a principal gets
 * 401. An application {@link HttpIdempotency} bean replaces the whole HTTP configuration.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({Filter.class, IdempotencyServletFilter.class, FilterRegistrationBean.class})
@ConditionalOnBean(IdempotencyEngine.class)
public class IdemWebAutoConfiguration {
    private static final String SECURITY_CONTEXT =
            "org.springframework.security.core.context.SecurityContextHolder";

    /** Created by Spring. */
    public IdemWebAutoConfiguration() {
    }

    /**
     * The HTTP contract, from {@code idem.http.*}.
     *
     * @param engine the engine
     * @param properties the settings
     * @param principals the application's principal resolver, if any
     * @return the configuration the filter applies
     */
    @Bean
    @ConditionalOnMissingBean
    public HttpIdempotency httpIdempotency(IdempotencyEngine engine, IdemProperties properties,
            ObjectProvider<PrincipalResolver> principals) {
        IdemProperties.Http http = properties.getHttp();
        PrincipalResolver resolver = principals.getIfUnique();
        if (resolver == null) {
            if (http.getPrincipalHeader() != null && !http.getPrincipalHeader().isBlank()) {
                resolver = PrincipalResolver.apiKeyHeader(http.getPrincipalHeader());
            } else if (ClassUtils.isPresent(SECURITY_CONTEXT, IdemWebAutoConfiguration.class.getClassLoader())) {
                resolver = SecurityContextPrincipal.resolver();
            } else {
                resolver = PrincipalResolver.authenticatedUser();
            }
        }
        boolean keyRequired = http.isKeyRequired();
        return HttpIdempotency.builder(engine)
                .methods(http.getMethods().toArray(new String[0]))
                .principals(resolver)
                .keyRequired(route -> keyRequired)
                .build();
    }

    /**
     * The filter registration; disabled while {@code idem.http.routes} is empty, so nothing
     * is covered by accident.
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
        List<String> routes = properties.getHttp().getRoutes();
        registration.setName("idempotencyFilter");
        registration.setOrder(properties.getHttp().getOrder());
        if (routes.isEmpty()) {
            registration.setEnabled(false);
        } else {
            registration.setUrlPatterns(routes);
        }
        return registration;
    }
}
