package dev.idem.quarkus.runtime;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyListener;
import dev.idem.micrometer.IdempotencyMetrics;
import dev.idem.quarkus.IdemConfig;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * Engine events as meters in the application's {@link MeterRegistry} ({@code idem.events},
 * {@code idem.execution}, {@code idem.replay}, ...; see idem-micrometer), unless
 * {@code idem.metrics.enabled=false}. Wired by the extension when quarkus-micrometer and
 * idem-micrometer are present; not for applications.
 */
@Singleton
public class IdemMetrics {
    /** Created by CDI. */
    public IdemMetrics() {
    }

    /**
     * The listener the engine reports to.
     *
     * @param registries the application's registry
     * @param store the store, for the {@code store} tag
     * @param config the configuration
     * @return the listener, or one that records nothing
     */
    @Produces
    @Singleton
    public IdempotencyListener idemMetricsListener(Instance<MeterRegistry> registries, IdempotencyStore store,
            IdemConfig config) {
        if (!config.metrics().enabled() || !registries.isResolvable()) {
            return IdempotencyListener.NONE;
        }
        return IdempotencyMetrics.bind(registries.get(), store);
    }
}
