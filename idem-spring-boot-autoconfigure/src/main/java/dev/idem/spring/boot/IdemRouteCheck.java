package dev.idem.spring.boot;

import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.web.servlet.function.support.RouterFunctionMapping;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;

/**
 * Refuses at startup an {@code idem.http.routes} entry that covers none of the application's
 * Spring MVC mappings, naming the mappings it has ({@link RouteCoverage}), so a pattern that
 * covers nothing (a servlet-style {@code /orders/*} where {@code /orders/**} was meant) is fixed
 * before the first duplicate runs twice. Functional endpoints cannot be listed: an application
 * with router functions has its entries checked against its annotated mappings only when those
 * cover them.
 */
final class IdemRouteCheck implements SmartInitializingSingleton {
    private final ObjectProvider<IdemProperties> properties;
    private final ObjectProvider<RequestMappingInfoHandlerMapping> handlerMappings;
    private final ObjectProvider<RouterFunctionMapping> routerFunctions;

    IdemRouteCheck(ObjectProvider<IdemProperties> properties,
            ObjectProvider<RequestMappingInfoHandlerMapping> handlerMappings,
            ObjectProvider<RouterFunctionMapping> routerFunctions) {
        this.properties = properties;
        this.handlerMappings = handlerMappings;
        this.routerFunctions = routerFunctions;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Set<String> mapped = new TreeSet<>();
        handlerMappings.orderedStream().forEach(m -> {
            for (RequestMappingInfo info : m.getHandlerMethods().keySet()) {
                mapped.addAll(info.getPatternValues());
            }
        });
        RouteCoverage.checkAtStartup(properties.getIfAvailable(), mapped,
                routerFunctions.orderedStream().anyMatch(m -> m.getRouterFunction() != null), "Spring MVC");
    }
}
