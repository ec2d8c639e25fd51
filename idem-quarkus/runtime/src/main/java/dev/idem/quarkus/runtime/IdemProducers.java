package dev.idem.quarkus.runtime;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.FailureClassifier;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.IdempotencyListener;
import dev.idem.engine.InProgressPolicy;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.PrincipalResolver;
import dev.idem.jaxrs.JaxrsRoutes;
import dev.idem.quarkus.IdemConfig;
import dev.idem.quarkus.StoreDecorator;
import dev.idem.store.memory.MemoryIdempotencyStore;
import io.quarkus.arc.All;
import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The beans the extension produces from {@code idem.*}, each a default that an application bean of
 * the same type replaces: the store (over the application's datasource, Redis or DynamoDB
 * client), the engine (with the application's {@link StoreDecorator}s, {@link IdempotencyListener}s
 * and {@link FailureClassifier}), the scoping rule and the HTTP contract. Wired by the extension;
 * not for applications.
 */
@Singleton
public class IdemProducers {
    private static final System.Logger LOG = System.getLogger(IdemProducers.class.getName());

    /** Created by CDI. */
    public IdemProducers() {
    }

    /**
     * The store {@code idem.store.kind} names; {@code auto} takes the first client the application
     * has (datasource, Redis, DynamoDB), else memory, with a warning.
     *
     * @param config the configuration
     * @param candidates the store kinds whose classes are present
     * @return the store
     * @throws IllegalStateException if the named kind's client is missing
     */
    @Produces
    @Singleton
    @DefaultBean
    public IdempotencyStore idempotencyStore(IdemConfig config, @All List<StoreCandidate> candidates) {
        IdemConfig.StoreKind kind = config.store().kind();
        if (kind == IdemConfig.StoreKind.MEMORY) {
            return MemoryIdempotencyStore.create();
        }
        for (IdemConfig.StoreKind k : List.of(IdemConfig.StoreKind.JDBC, IdemConfig.StoreKind.REDIS,
                IdemConfig.StoreKind.DYNAMODB)) {
            if (kind != IdemConfig.StoreKind.AUTO && kind != k) {
                continue;
            }
            for (StoreCandidate c : candidates) {
                if (c.kind() == k) {
                    Optional<IdempotencyStore> store = c.create(config);
                    if (store.isPresent()) {
                        return store.get();
                    }
                }
            }
            if (kind == k) {
                String name = k.name().toLowerCase(Locale.ROOT);
                boolean module = candidates.stream().anyMatch(c -> c.kind() == k);
                throw new IllegalStateException("idem.store.kind=" + name + " but the application has no " + client(k)
                        + (module ? "" : " (and idem-store-" + name + " is not on the class path)") + ".\nAction: "
                        + (module ? "" : "add dev.idem:idem-store-" + name + ", and ") + action(k)
                        + ", or set idem.store.kind to the store the application has (auto picks one).");
            }
        }
        LOG.log(System.Logger.Level.WARNING, "idem: no datasource, Redis or DynamoDB client found; using the in-memory"
                + " idempotency store, which deduplicates within this process only and loses its records on restart."
                + " Set idem.store.kind=memory to silence this warning.");
        return MemoryIdempotencyStore.create();
    }

    private static String action(IdemConfig.StoreKind kind) {
        switch (kind) {
            case JDBC: return "add quarkus-agroal with a JDBC driver extension and configure its datasource"
                    + " (quarkus.datasource.*; idem.store.jdbc.datasource names one that is not the default)";
            case REDIS: return "add redis.clients:jedis and give the server (idem.store.redis.uri, or"
                    + " quarkus.redis.hosts), or produce a UnifiedJedis bean";
            default: return "add the Quarkiverse amazon-dynamodb extension (or produce a DynamoDbClient bean)";
        }
    }

    private static String client(IdemConfig.StoreKind kind) {
        switch (kind) {
            case JDBC: return "active datasource (quarkus-agroal and a JDBC driver extension, idem.store.jdbc.datasource)";
            case REDIS: return "Redis: no UnifiedJedis bean, idem.store.redis.uri, idem.store.redis.cluster or"
                    + " quarkus.redis.hosts";
            default: return "DynamoDbClient bean";
        }
    }

    /**
     * Closes the store at shutdown; a client the application gave it stays open.
     *
     * @param store the store
     */
    public void closeStore(@Disposes IdempotencyStore store) {
        store.close();
    }

    /**
     * The engine over the store, decorated.
     *
     * @param store the store
     * @param config the configuration
     * @param decorators the application's store decorators, first innermost
     * @param listeners the application's listeners (and the metrics one)
     * @param classifier the application's failure classifier, if any
     * @return the engine
     */
    @Produces
    @Singleton
    @DefaultBean
    public IdempotencyEngine idempotencyEngine(IdempotencyStore store, IdemConfig config,
            @All List<StoreDecorator> decorators, @All List<IdempotencyListener> listeners,
            Instance<FailureClassifier> classifier) {
        IdempotencyStore used = store;
        for (StoreDecorator d : decorators) {
            used = d.decorate(used);
        }
        IdempotencyEngineBuilder b = IdempotencyEngine.builder().store(used).lease(config.lease()).ttl(config.ttl())
                .maxRequestBytes(config.maxRequestBytes()).listener(IdempotencyListener.all(listeners));
        config.inProgressWait().ifPresent(w -> b.inProgress(InProgressPolicy.waitUpTo(w)));
        if (config.nearCache() > 0) {
            b.nearCache(config.nearCache());
        }
        if (classifier.isResolvable()) {
            b.failureClassifier(classifier.get());
        }
        return b.build();
    }

    /**
     * Closes the engine at shutdown (its own threads; the store is closed as a bean).
     *
     * @param engine the engine
     */
    public void closeEngine(@Disposes IdempotencyEngine engine) {
        engine.close();
    }

    /**
     * The scoping rule: the {@code SecurityContext}'s principal, else the hashed
     * {@code idem.http.principal-header}; neither is a 401.
     *
     * @param config the configuration
     * @return the rule
     */
    @Produces
    @Singleton
    @DefaultBean
    public PrincipalResolver principalResolver(IdemConfig config) {
        return config.http().principalHeader().map(String::strip).filter(h -> !h.isEmpty())
                .map(h -> PrincipalResolver.authenticatedUser().orElse(PrincipalResolver.apiKeyHeader(h)))
                .orElseGet(PrincipalResolver::authenticatedUser);
    }

    /**
     * The HTTP contract of {@code @Idempotent} resource methods and the {@code idem.http.routes}
     * templates, named after their templates.
     *
     * @param engine the engine
     * @param config the configuration
     * @param principals the scoping rule
     * @param store the store (undecorated), which {@code idem.http.transactional} needs to be the JDBC store
     * @return the contract
     * @throws IllegalStateException if {@code idem.http.transactional} is set and its JTA transaction
     *     cannot hold (the store is not the JDBC store over the Agroal datasource with JTA on, or
     *     {@code idem.http.routes} is set)
     */
    @Produces
    @Singleton
    @DefaultBean
    public HttpIdempotency httpIdempotency(IdempotencyEngine engine, IdemConfig config, PrincipalResolver principals,
            IdempotencyStore store) {
        IdemConfig.Http http = config.http();
        var annotated = JaxrsRoutes.annotated();
        var listed = JaxrsRoutes.templates(http.routes().orElse(List.of()));
        boolean keyRequired = http.keyRequired();
        HttpIdempotency.Builder b = HttpIdempotency.builder(engine)
                .methods(http.methods().toArray(new String[0]))
                .routes(request -> annotated.route(request).or(() -> listed.route(request)))
                .principals(principals)
                .keyRequired(route -> keyRequired)
                .maxBodyBytes(config.maxRequestBytes())
                .storeRetryAfter(http.storeRetryAfter());
        http.storedHeaders().ifPresent(h -> b.storedHeaders(h.toArray(new String[0])));
        http.excludeFromFingerprint().ifPresent(p -> b.excludeFromFingerprint(p.toArray(new String[0])));
        if (http.transactional()) {
            b.execution(TransactionalMode.execution(engine, store, config));
        }
        return b.build();
    }
}
