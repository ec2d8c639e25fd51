package dev.idem.http;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.quarkus.StoreDecorator;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.arc.properties.UnlessBuildProperty;
import io.smallrye.common.annotation.Identifier;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.ext.Provider;
import java.security.Principal;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The application the Quarkus contract tests start: the suite's configurations as beans over the
 * engine and store the extension builds from {@code idem.*} (the store wrapped, through the
 * extension's {@link StoreDecorator} hook, in the suite's switchable store), the X-User header as
 * the {@code SecurityContext}'s principal, and the resources in {@link BlockingResources} or
 * {@link ReactiveResources}.
 */
final class QuarkusContractApp {
    /** The application's handler, shared with the test (one class loader in @QuarkusTest). */
    static final TestHandler HANDLER = new TestHandler();
    /** Threads the application was called on, for the reactive variant. */
    static final Set<String> HANDLER_THREADS = ConcurrentHashMap.newKeySet();

    private QuarkusContractApp() {
    }

    /**
     * The suite's default configuration, for /api and /anon. Not in the README's application nor
     * in the JTA mode's ({@code contract.extension-configuration=true}), which run on the one the
     * extension builds from {@code idem.http.*}.
     */
    @Singleton
    @UnlessBuildProperty(name = "contract.extension-configuration", stringValue = "true")
    static class DefaultConfiguration {
        @Produces
        @Singleton
        HttpIdempotency api(IdempotencyEngine engine) {
            return AbstractHttpContract.config(engine);
        }
    }

    /** The suite's configurations "custom" and "final" by name (startup needs them for every @Idempotent name). */
    @Singleton
    static class Configurations {
        @Produces
        @Singleton
        @Identifier("custom")
        HttpIdempotency custom(IdempotencyEngine engine) {
            return AbstractHttpContract.storeAllConfig(engine);
        }

        @Produces
        @Singleton
        @Identifier("final")
        HttpIdempotency finalFailures(IdempotencyEngine engine) {
            return AbstractHttpContract.config(AbstractHttpContract.finalFailureEngine((SwitchableStore) engine.store()));
        }

        /** A registry the meters can be read from; Quarkus adds it to its composite. */
        @Produces
        @Singleton
        MeterRegistry registry() {
            return new SimpleMeterRegistry();
        }
    }

    /** The suite's switchable store around the store the extension built. */
    @Singleton
    static class Switch implements StoreDecorator {
        @Override
        public IdempotencyStore decorate(IdempotencyStore store) {
            return new SwitchableStore(store);
        }
    }

    /** Stands in for Quarkus security: the X-User header becomes the principal, except under /anon. */
    @Provider
    @Priority(Priorities.AUTHENTICATION)
    public static class Authentication implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            String user = request.getHeaderString("X-User");
            if (user == null || request.getUriInfo().getPath().startsWith("/anon")) {
                return;
            }
            Principal principal = () -> user;
            request.setSecurityContext(new SecurityContext() {
                @Override
                public Principal getUserPrincipal() {
                    return principal;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return false;
                }

                @Override
                public boolean isSecure() {
                    return false;
                }

                @Override
                public String getAuthenticationScheme() {
                    return "X-User";
                }
            });
        }
    }
}
