package dev.idem.spring.boot;

import dev.idem.spring.Idempotent;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * With {@code idem.enabled=false}, says at startup what that turns off: no engine, no
 * Idempotency-Key filter (whatever {@code idem.http.routes} says), and every {@link Idempotent}
 * method, named one by one, runs as a plain call, a transactional one without its transaction.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "idem", name = "enabled", havingValue = "false")
public class IdemDisabledAutoConfiguration {
    private static final System.Logger LOG = System.getLogger(IdemDisabledAutoConfiguration.class.getName());

    /** Created by Spring. */
    public IdemDisabledAutoConfiguration() {
    }

    /**
     * The startup report.
     *
     * @param beans the bean factory, to find {@code @Idempotent} methods
     * @param environment the environment, for {@code idem.http.routes}
     * @return the report, logged once every singleton exists
     */
    @Bean
    static SmartInitializingSingleton idemDisabledReport(ConfigurableListableBeanFactory beans,
            org.springframework.core.env.Environment environment) {
        return () -> {
            List<String> methods = new ArrayList<>();
            for (String name : beans.getBeanDefinitionNames()) {
                Class<?> type = beans.getType(name, false);
                if (type == null) {
                    continue;
                }
                Class<?> user = ClassUtils.getUserClass(type);
                ReflectionUtils.doWithMethods(user, m -> methods.add(describe(user, m)),
                        m -> AnnotatedElementUtils.hasAnnotation(m, Idempotent.class));
            }
            String routes = environment.getProperty("idem.http.routes", "");
            LOG.log(System.Logger.Level.WARNING, "idem is disabled (idem.enabled=false): no idempotency engine, "
                    + "no Idempotency-Key filter" + (routes.isEmpty() ? "" : " (idem.http.routes=" + routes
                    + " covers nothing)") + (methods.isEmpty() ? "" : ", and these @Idempotent methods run as "
                    + "plain calls, duplicates included: " + String.join(", ", methods)));
        };
    }

    private static String describe(Class<?> type, Method m) {
        Idempotent a = AnnotatedElementUtils.findMergedAnnotation(m, Idempotent.class);
        return type.getSimpleName() + "." + m.getName() + (a != null && a.transactional()
                ? " (transactional: also without its transaction)" : "");
    }
}
