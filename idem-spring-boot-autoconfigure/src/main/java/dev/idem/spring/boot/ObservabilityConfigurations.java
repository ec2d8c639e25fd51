package dev.idem.spring.boot;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyListener;
import dev.idem.micrometer.IdempotencyMetrics;
import dev.idem.micrometer.IdempotencyObservation;
import dev.idem.opentelemetry.IdempotencyTracing;
import dev.idem.spring.CallObserver;
import dev.idem.spring.StoreDecorator;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The instrumentation. With Micrometer's {@link ObservationRegistry} (every Boot application
 * with the actuator has one): {@code idem.execution} and {@code idem.store} observations, one
 * instrumentation for metrics and traces (Brave or the OpenTelemetry bridge). Without it: meters
 * in the {@link MeterRegistry} ({@link IdempotencyMetrics}) and spans through an
 * {@link OpenTelemetry} bean ({@link IdempotencyTracing}). Every part names the store by the
 * store bean's kind ({@code jdbc}, never a wrapper's class).
 */
final class ObservabilityConfigurations {
    private ObservabilityConfigurations() {
    }

    private static String kind(ObjectProvider<IdempotencyStore> store) {
        IdempotencyStore s = store.getIfUnique();
        return s == null ? "unknown" : StoreKinds.of(s);
    }

    /** One instrumentation through the Observation API. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({IdempotencyObservation.class, ObservationRegistry.class})
    @ConditionalOnBean(ObservationRegistry.class)
    @ConditionalOnProperty(prefix = "idem.metrics", name = "enabled", havingValue = "true", matchIfMissing = true)
    static class Observations {
        @Bean
        IdempotencyObservation idempotencyObservation(ObservationRegistry registry,
                ObjectProvider<IdempotencyStore> store) {
            return IdempotencyObservation.builder(registry).storeKind(kind(store)).build();
        }

        @Bean
        IdempotencyListener idempotencyObservationListener(IdempotencyObservation observation) {
            return observation.listener();
        }

        @Bean
        StoreDecorator idempotencyObservationStoreDecorator(IdempotencyObservation observation) {
            return observation::wrap;
        }

        @Bean
        CallObserver idempotencyCallObserver(IdempotencyObservation observation) {
            return new CallObserver() {
                @Override
                public <T> T observe(String operationName, dev.idem.api.IdempotencyKey key, Supplier<T> call) {
                    return observation.observe(operationName, key, call);
                }

                @Override
                public <T> CompletableFuture<T> observeAsync(String operationName, dev.idem.api.IdempotencyKey key,
                        Supplier<CompletableFuture<T>> call) {
                    return observation.observeAsync(operationName, key, call);
                }
            };
        }
    }

    /** Meters only, for an application with a MeterRegistry but no ObservationRegistry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({IdempotencyMetrics.class, MeterRegistry.class})
    @ConditionalOnMissingBean(type = "io.micrometer.observation.ObservationRegistry")
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
            return IdempotencyMetrics.builder(r).storeKind(kind(store))
                    .tagScope(properties.metrics().tagScope()).build();
        }
    }

    /** Spans through OpenTelemetry, for an application without Micrometer's ObservationRegistry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({IdempotencyTracing.class, OpenTelemetry.class})
    @ConditionalOnMissingBean(type = "io.micrometer.observation.ObservationRegistry")
    @ConditionalOnProperty(prefix = "idem.tracing", name = "enabled", havingValue = "true", matchIfMissing = true)
    static class Tracing {
        @Bean
        IdempotencyListener idempotencyTracingListener(ObjectProvider<OpenTelemetry> otel) {
            OpenTelemetry o = otel.getIfUnique();
            return o == null ? null : IdempotencyTracing.create(o);
        }

        @Bean
        StoreDecorator idempotencyTracingStoreDecorator(ObjectProvider<OpenTelemetry> otel,
                ObjectProvider<IdempotencyStore> store) {
            return s -> {
                OpenTelemetry o = otel.getIfUnique();
                return o == null ? s : IdempotencyTracing.builder(o).storeKind(kind(store)).build().wrap(s);
            };
        }
    }
}
