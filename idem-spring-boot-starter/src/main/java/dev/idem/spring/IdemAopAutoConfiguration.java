package dev.idem.spring;

import dev.idem.engine.IdempotencyEngine;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.EnableAspectJAutoProxy;

/** The {@link IdempotentAspect} for {@link Idempotent} methods, with AspectJ auto-proxying on. */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnClass(name = "org.aspectj.weaver.Advice")
@ConditionalOnBean(IdempotencyEngine.class)
@EnableAspectJAutoProxy(proxyTargetClass = true)
public class IdemAopAutoConfiguration {
    /** Created by Spring. */
    public IdemAopAutoConfiguration() {
    }

    /**
     * The aspect.
     *
     * @param engine the engine
     * @param transactional the transactional mode, when available
     * @param properties the {@code idem.aop.*} settings
     * @return the aspect
     */
    @Bean
    @ConditionalOnMissingBean
    public IdempotentAspect idempotentAspect(IdempotencyEngine engine,
            ObjectProvider<TransactionalExecutor> transactional, IdemProperties properties) {
        return new IdempotentAspect(engine, transactional, properties.getAop().getDefaultScope());
    }
}
