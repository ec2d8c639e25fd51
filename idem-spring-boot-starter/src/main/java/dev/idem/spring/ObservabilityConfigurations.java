package dev.idem.spring;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyListener;
import dev.idem.micrometer.IdempotencyMetrics;
import dev.idem.opentelemetry.IdempotencyTracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Metrics and tracing, each active when its library and idem adapter are present. */
final class ObservabilityConfigurations {
    private ObservabilityConfigurations() {
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({IdempotencyMetrics.class, MeterRegistry.class})
    @ConditionalOnProperty(prefix = "idem.metrics", name = "enabled", havingValue = "true", matchIfMissing = true)
    static class Metrics {
        @Bean
        IdempotencyListener idempotencyMetricsListener(ObjectProvider<MeterRegistry> registry,
                ObjectProvider<IdempotencyStore> store, IdemProperties properties) {
            MeterRegistry r = registry.getIfUnique();
            if (r == null) {
                // A null bean: the engine's listener stream skips it.
                return null;
            }
            IdempotencyStore s = store.getIfUnique();
            return IdempotencyMetrics.builder(r)
                    .storeKind(s == null ? "unknown" : IdempotencyMetrics.storeKind(s))
                    .tagScope(properties.getMetrics().isTagScope()).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({IdempotencyTracing.class, OpenTelemetry.class})
    @ConditionalOnProperty(prefix = "idem.tracing", name = "enabled", havingValue = "true", matchIfMissing = true)
    static class Tracing {
        @Bean
        IdempotencyListener idempotencyTracingListener(ObjectProvider<OpenTelemetry> otel) {
            OpenTelemetry o = otel.getIfUnique();
            return o == null ? null : IdempotencyTracing.create(o);
        }

        @Bean
        StoreDecorator idempotencyTracingStoreDecorator(ObjectProvider<OpenTelemetry> otel) {
            return store -> {
                OpenTelemetry o = otel.getIfUnique();
                return o == null ? store : IdempotencyTracing.create(o).wrap(store);
            };
        }
    }
}
