package dev.idem.spring.boot;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.PrincipalResolver;
import dev.idem.spring.CallObserver;
import dev.idem.spring.Idempotent;
import dev.idem.spring.IdempotentInterceptor;
import dev.idem.spring.IdempotentInterceptor.CallerSource;
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
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * {@link Idempotent} methods: an {@link IdempotentInterceptor} behind an infrastructure advisor,
 * as Spring's own {@code @Transactional} is wired. Whatever auto-proxy creator the application
 * has applies it, with its {@code spring.aop.*} settings (this configuration forces neither
 * AspectJ nor class proxies); if there is none, a plain infrastructure one is registered. The
 * advisor sits inside method security and outside {@code @Transactional}, so an unauthorized
 * call claims nothing and the record is completed after the method's own transaction commits.
 * Startup refuses, naming the method and the action ({@link IdemFailureAnalyzer}), an
 * {@code @Idempotent} method idem cannot run: a return type it cannot run once (a {@code Flux}, a
 * {@code Future}), an expression naming a parameter the method does not have, in a reactive
 * application a method that returns no {@code Mono} and names no scope, and
 * {@code transactional = true} without the JDBC transactional mode.
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
     * The interceptor of a servlet or non-web application; its collaborators are looked up on
     * first use.
     *
     * @param engine the engine
     * @param transactional the transactional mode, when available
     * @param principals the scoping rule shared with the filter
     * @param observer the instrumentation, when available
     * @param environment where {@code idem.aop.default-scope} is read
     * @return the interceptor
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static IdempotentInterceptor idempotentInterceptor(ObjectProvider<IdempotencyEngine> engine,
            ObjectProvider<TransactionalExecutor> transactional, ObjectProvider<PrincipalResolver> principals,
            ObjectProvider<CallObserver> observer, Environment environment) {
        return interceptor(engine, transactional, principals, observer, environment, CallerSource.THREAD);
    }

    /**
     * Created while bean post-processors are being created (the advisor is looked up by the
     * auto-proxy creator), so it reads its one setting from the environment rather than asking
     * for the {@code IdemProperties} bean, which would then miss post-processors (and Spring would
     * warn about it on every start).
     */
    static IdempotentInterceptor interceptor(ObjectProvider<IdempotencyEngine> engine,
            ObjectProvider<TransactionalExecutor> transactional, ObjectProvider<PrincipalResolver> principals,
            ObjectProvider<CallObserver> observer, Environment environment, CallerSource callers) {
        String defaultScope = Binder.get(environment).bind("idem.aop.default-scope", String.class).orElse(null);
        return new IdempotentInterceptor(engine, transactional, principals, observer, defaultScope, callers);
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
        // Matched while beans are proxied, so a method idem cannot run fails the startup.
        StaticMethodMatcherPointcut pointcut = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                if (!annotated.matches(method, targetClass)) {
                    return false;
                }
                interceptor.check(AopUtils.getMostSpecificMethod(method, targetClass));
                return true;
            }
        };
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(pointcut, interceptor);
        advisor.setOrder(ADVISOR_ORDER);
        return advisor;
    }

    /**
     * Refuses, once every bean exists, {@code @Idempotent(transactional = true)} methods when the
     * transactional mode cannot run.
     *
     * @param interceptor the interceptor, which saw every advised method
     * @return the check
     */
    @Bean
    static SmartInitializingSingleton idemTransactionalMethodsCheck(ObjectProvider<IdempotentInterceptor> interceptor) {
        return () -> interceptor.ifAvailable(IdempotentInterceptor::checkTransactionalMode);
    }

    /**
     * In a reactive application the caller is Spring Security's reactive user, which only a
     * {@code Mono} sees: other {@code @Idempotent} methods must name their scope.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    static class Reactive {
        /**
         * The interceptor of a reactive application.
         *
         * @param engine the engine
         * @param transactional the transactional mode, when available
         * @param principals the scoping rule shared with the filter
         * @param observer the instrumentation, when available
         * @param environment where {@code idem.aop.default-scope} is read
         * @return the interceptor
         */
        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        @ConditionalOnMissingBean
        static IdempotentInterceptor idempotentInterceptor(ObjectProvider<IdempotencyEngine> engine,
                ObjectProvider<TransactionalExecutor> transactional, ObjectProvider<PrincipalResolver> principals,
                ObjectProvider<CallObserver> observer, Environment environment) {
            return interceptor(engine, transactional, principals, observer, environment, CallerSource.REACTIVE);
        }
    }

    /** Registers an infrastructure auto-proxy creator when the application has none (spring.aop.auto=false). */
    static final class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
