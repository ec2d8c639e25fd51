package dev.idem.quarkus.runtime;

import dev.idem.http.HttpIdempotency;
import dev.idem.jaxrs.JaxrsIdempotency;
import dev.idem.jaxrs.JaxrsRoutes;
import dev.idem.quarkus.IdemConfig;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.container.ResourceInfo;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which configuration covers a Quarkus REST request: {@code @Idempotent("name")} picks the
 * {@code @Identifier("name") HttpIdempotency} bean, anything else the default one (whose routes
 * then decide: {@code @Idempotent} methods and the {@code idem.http.routes} templates, unless the
 * application replaced it). One {@link JaxrsIdempotency} per configuration, reading bodies without
 * blocking. Wired by the extension; not for applications.
 */
@Singleton
public class IdemRest {
    private final Instance<HttpIdempotency> configs;
    private final Instance<IdemConfig> config;
    private volatile Boolean enabled;
    private final Map<String, JaxrsIdempotency> cores = new ConcurrentHashMap<>();
    private final Map<Method, String> names = new ConcurrentHashMap<>();

    /**
     * Created by CDI, possibly at static init (Quarkus REST creates its filters then), so the
     * run-time configuration is read on first use.
     *
     * @param configs every HttpIdempotency bean
     * @param config the configuration
     */
    @Inject
    public IdemRest(@Any Instance<HttpIdempotency> configs, Instance<IdemConfig> config) {
        this.configs = configs;
        this.config = config;
    }

    /**
     * Builds the default configuration at startup when {@code idem.http.transactional} is set, so
     * that a store that cannot join the transaction fails the startup, not the first request.
     *
     * @param event the startup
     */
    void checkTransactionalMode(@Observes StartupEvent event) {
        if (config.get().http().enabled() && config.get().http().transactional()) {
            lookup("");
        }
    }

    /**
     * The core for requests to {@code resource}, or empty when {@code idem.http.enabled=false} or
     * nothing matched.
     *
     * @param resource the matched resource method, or null
     * @return the core
     */
    public Optional<JaxrsIdempotency> core(ResourceInfo resource) {
        Boolean on = enabled;
        if (on == null) {
            on = config.get().http().enabled();
            enabled = on;
        }
        if (!on) {
            return Optional.empty();
        }
        Method method = resource == null ? null : resource.getResourceMethod();
        if (method == null) {
            return Optional.empty();
        }
        String name = names.computeIfAbsent(method,
                m -> JaxrsRoutes.configuration(resource.getResourceClass(), m).orElse(""));
        return Optional.of(core(name));
    }

    /**
     * Every core created so far: one of them owns a covered request's response phase.
     *
     * @return the cores
     */
    public Collection<JaxrsIdempotency> cores() {
        return cores.values();
    }

    private JaxrsIdempotency core(String name) {
        return cores.computeIfAbsent(name, n -> new JaxrsIdempotency(List.of(lookup(n)), new RestBodyReader()));
    }

    /**
     * Whether a configuration named {@code name} exists.
     *
     * @param name empty for the default
     * @return whether it resolves
     */
    public boolean resolvable(String name) {
        return select(name).isResolvable();
    }

    private Instance<HttpIdempotency> select(String name) {
        return name.isEmpty() ? configs.select(Default.Literal.INSTANCE) : configs.select(Identifier.Literal.of(name));
    }

    /**
     * The configuration named {@code name}.
     *
     * @param name empty for the default
     * @return the configuration
     * @throws IllegalStateException if there is no such bean
     */
    public HttpIdempotency lookup(String name) {
        Instance<HttpIdempotency> found = select(name);
        if (!found.isResolvable()) {
            throw new IllegalStateException("@Idempotent(\"" + name + "\") names no HttpIdempotency bean: produce one"
                    + " with @Identifier(\"" + name + "\")");
        }
        return found.get();
    }
}
