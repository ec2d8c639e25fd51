package dev.idem.spring.boot3;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.spring.boot.IdemAutoConfiguration;
import dev.idem.spring.boot.StoreKinds;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * An actuator health indicator named {@code idem} (Spring Boot 3's health API): UP when one
 * read of the store succeeds, DOWN with the error otherwise; the details name the store's kind.
 * Off with {@code management.health.idem.enabled=false} (or all indicators off by default).
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(IdempotencyStore.class)
@ConditionalOnEnabledHealthIndicator("idem")
public class IdemHealthAutoConfiguration {
    private static final IdempotencyKey PROBE = IdempotencyKey.of("idem-health", "health-check", "probe");

    /** Created by Spring. */
    public IdemHealthAutoConfiguration() {
    }

    /**
     * The indicator.
     *
     * @param store the store to probe
     * @return the indicator
     */
    @Bean
    @ConditionalOnMissingBean(name = "idemHealthIndicator")
    public HealthIndicator idemHealthIndicator(IdempotencyStore store) {
        String kind = StoreKinds.of(store);
        return () -> {
            try {
                store.find(PROBE);
                return Health.up().withDetail("store", kind).build();
            } catch (RuntimeException e) {
                return Health.down(e).withDetail("store", kind).build();
            }
        };
    }
}
