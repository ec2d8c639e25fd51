package dev.idem.spring.boot;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.PrincipalResolver;
import dev.idem.spring.CallObserver;
import dev.idem.spring.Idempotent;
import dev.idem.spring.IdempotentInterceptor;
import dev.idem.spring.TransactionalExecutor;
import java.lang.reflect.Method;
import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.MethodMatcher;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.type.AnnotationMetadata;

/**
 * {@link Idempotent} methods: an {@link IdempotentInterceptor} behind an infrastructure advisor,
 * as Spring's own {@code @Transactional} is wired. Whatever auto-proxy creator the application
 * has applies it, with its {@code spring.aop.*} settings (this configuration forces neither
 * AspectJ nor class proxies); if there is none, a plain infrastructure one is registered. The
 * advisor sits inside method security and outside {@code @Transactional}, so an unauthorized
 * call claims nothing and the record is completed after the method's own transaction commits.
 * An {@code @Idempotent} method whose return type idem cannot run once (a {@code Flux}, a
 * {@code Future}) fails the startup, naming it.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class, afterName = {
        "org.springframework.boot.autoconfigure.aop.AopAutoConfiguration"})
@ConditionalOnBean(IdempotencyEngine.class)
@Import(IdemAopAutoConfiguration.AutoProxyRegistrar.class)
public class IdemAopAutoConfiguration {
    /** Inside method security (order 100 to 600), outside transactions (lowest precedence). */
    public static final int ADVISOR_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    /** Created by Spring. */
    public IdemAopAutoConfiguration() {
    }

    /**
     * The interceptor; its collaborators are looked up on first use.
     *
     * @param engine the engine
     * @param transactional the transactional mode, when available
     * @param principals the scoping rule shared with the filter
     * @param observer the instrumentation, when available
     * @param properties the {@code idem.aop.*} settings
     * @return the interceptor
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static IdempotentInterceptor idempotentInterceptor(ObjectProvider<IdempotencyEngine> engine,
            ObjectProvider<TransactionalExecutor> transactional, ObjectProvider<PrincipalResolver> principals,
            ObjectProvider<CallObserver> observer, ObjectProvider<IdemProperties> properties) {
        IdemProperties p = properties.getIfAvailable();
        return new IdempotentInterceptor(engine, transactional, principals, observer,
                p == null ? null : p.getAop().getDefaultScope());
    }

    /**
     * The advisor that applies the interceptor to {@code @Idempotent} methods.
     *
     * @param interceptor the interceptor
     * @return the advisor
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor idempotentAdvisor(IdempotentInterceptor interceptor) {
        MethodMatcher annotated = new AnnotationMatchingPointcut(null, Idempotent.class, true).getMethodMatcher();
        // Matched while beans are proxied, so a return type idem cannot run once fails the startup.
        StaticMethodMatcherPointcut pointcut = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                if (!annotated.matches(method, targetClass)) {
                    return false;
                }
                IdempotentInterceptor.checkReturnType(AopUtils.getMostSpecificMethod(method, targetClass));
                return true;
            }
        };
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(pointcut, interceptor);
        advisor.setOrder(ADVISOR_ORDER);
        return advisor;
    }

    /** Registers an infrastructure auto-proxy creator when the application has none (spring.aop.auto=false). */
    static final class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
