package dev.idem.quarkus.runtime;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * A readiness check named {@code idem}: UP when one read of the store the engine uses (decorators
 * included) succeeds, DOWN otherwise, with the failure's kind (its exception's class) but never
 * its message, which may name hosts, users, key ids or the data of a record, and which the health
 * endpoint shows to whoever can reach it; the data names that store. Off with
 * {@code quarkus.smallrye-health.check."dev.idem.quarkus.runtime.IdemHealthCheck".enabled=false}.
 * Wired by the extension when quarkus-smallrye-health is present; not for applications.
 */
@Readiness
@Singleton
public class IdemHealthCheck implements HealthCheck {
    private static final IdempotencyKey PROBE = IdempotencyKey.of("idem-health", "health-check", "probe");

    private final IdempotencyEngine engine;

    /**
     * Created by CDI.
     *
     * @param engine the engine whose store is probed
     */
    @Inject
    public IdemHealthCheck(IdempotencyEngine engine) {
        this.engine = engine;
    }

    @Override
    public HealthCheckResponse call() {
        var store = engine.store();
        var response = HealthCheckResponse.named("idem").withData("store", StoreKinds.of(store));
        try {
            store.find(PROBE);
            return response.up().build();
        } catch (RuntimeException e) {
            return response.down().withData("error", e.getClass().getSimpleName()).build();
        }
    }
}
