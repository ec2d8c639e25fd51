package dev.idem.spring.boot;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.FailureClassifier;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.IdempotencyListener;
import dev.idem.engine.InProgressPolicy;
import dev.idem.engine.JsonCodec;
import dev.idem.engine.protection.OutcomeFilter;
import dev.idem.http.PrincipalResolver;
import dev.idem.spring.SpringPrincipals;
import dev.idem.spring.StoreDecorator;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Auto-configures an {@link IdempotencyEngine} over the store the application already has.
 *
 * <p>The store, unless the application defines an {@link IdempotencyStore} bean: with
 * {@code idem.store.kind=auto} (the default) the application's unique {@code DataSource}
 * (JDBC store, dialect detected; needs idem-store-jdbc), else its Redis client (Spring Data Redis'
 * {@code RedisConnectionFactory}, Lettuce or Jedis underneath, or a Jedis or Lettuce client bean;
 * the Redis store comes with the starter), else its {@code DynamoDbClient} (needs idem-store-dynamodb),
 * else the memory store, with a warning since it holds records in one process only. A named
 * kind that the application cannot provide fails startup with Boot's failure report
 * ({@link IdemFailureAnalyzer}). The engine, unless the application defines one, takes the
 * {@code idem.*} settings, the application's {@link JsonCodec} (the Boot 4 starter makes one of the
 * application's Jackson 3 {@code JsonMapper}) or else its Jackson 2 {@link ObjectMapper}, its
 * {@link FailureClassifier} if any, and every {@link IdempotencyListener} bean (the
 * instrumentation contributes one). The {@link PrincipalResolver}, unless the application
 * defines one, is the scoping rule the filter and {@code @Idempotent} share
 * ({@link SpringPrincipals#standard}).
 *
 * <p>Runs on Spring Boot 3.5 and 4 alike: the classes it orders itself after are named in both
 * generations' packages.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration",
        "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
        "org.springframework.boot.jackson2.autoconfigure.Jackson2AutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"})
@ConditionalOnProperty(prefix = "idem", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(IdemProperties.class)
@Import({StoreConfigurations.Jdbc.class, StoreConfigurations.Redis.class, StoreConfigurations.DynamoDb.class,
        ObservabilityConfigurations.Observations.class, ObservabilityConfigurations.Metrics.class,
        ObservabilityConfigurations.Tracing.class, StoreConfigurations.JdbcTransactions.class,
        IdemAutoConfiguration.Principals.class})
public class IdemAutoConfiguration {
    private static final System.Logger LOG = System.getLogger(IdemAutoConfiguration.class.getName());

    /** Created by Spring. */
    public IdemAutoConfiguration() {
    }

    /**
     * The store, chosen as the class Javadoc says.
     *
     * @param properties the {@code idem.*} settings
     * @param candidates the stores the application's beans make possible
     * @return the store
     * @throws StoreClientMissingException if {@code idem.store.kind} names a store the application cannot provide
     */
    @Bean
    @ConditionalOnMissingBean(IdempotencyStore.class)
    public IdempotencyStore idempotencyStore(IdemProperties properties, ObjectProvider<StoreCandidate> candidates) {
        IdemProperties.StoreKind kind = properties.store().kind();
        List<StoreCandidate> available = candidates.orderedStream().collect(Collectors.toList());
        if (kind == IdemProperties.StoreKind.MEMORY) {
            return MemoryIdempotencyStore.create();
        }
        for (IdemProperties.StoreKind k : List.of(IdemProperties.StoreKind.JDBC, IdemProperties.StoreKind.REDIS,
                IdemProperties.StoreKind.DYNAMODB)) {
            if (kind != IdemProperties.StoreKind.AUTO && kind != k) {
                continue;
            }
            for (StoreCandidate c : available) {
                if (c.kind() == k) {
                    Optional<IdempotencyStore> store = c.create();
                    if (store.isPresent()) {
                        return store.get();
                    }
                }
            }
            if (kind == k) {
                String name = k.name().toLowerCase(Locale.ROOT);
                throw new StoreClientMissingException(name, clientFor(k), "idem-store-" + name);
            }
        }
        LOG.log(System.Logger.Level.WARNING, "idem: no DataSource, Redis or DynamoDB client found; using the "
                + "in-memory idempotency store, which deduplicates within this process only and loses its "
                + "records on restart. Set idem.store.kind=memory to silence this warning.");
        return MemoryIdempotencyStore.create();
    }

    private static String clientFor(IdemProperties.StoreKind kind) {
        switch (kind) {
            case JDBC: return "unique DataSource";
            case REDIS: return "Redis client (a Spring Data Redis RedisConnectionFactory from "
                    + "spring-boot-starter-data-redis, a Lettuce RedisClient, a Jedis UnifiedJedis or a RedisScriptClient)";
            default: return "DynamoDbClient";
        }
    }

    /**
     * The engine.
     *
     * @param store the store
     * @param properties the {@code idem.*} settings
     * @param listeners every listener bean, in order
     * @param decorators wrappers of the store (observations, spans, the transactional mode's view)
     * @param jsonCodec the application's JSON codec (on Boot 4: Jackson 3 over its {@code JsonMapper}), if any
     * @param objectMapper the application's Jackson 2 mapper, used when there is no codec
     * @param classifier the application's failure classifier, if any
     * @param outcomeFilter the application's outcome filter (what of a result is stored), if any
     * @param customizers every engine customizer (the {@code idem.protection.*} one among them), in order
     * @return the engine
     */
    @Bean
    @ConditionalOnMissingBean(IdempotencyEngine.class)
    public IdempotencyEngine idempotencyEngine(IdempotencyStore store, IdemProperties properties,
            ObjectProvider<IdempotencyListener> listeners, ObjectProvider<StoreDecorator> decorators,
            ObjectProvider<JsonCodec> jsonCodec, ObjectProvider<ObjectMapper> objectMapper,
            ObjectProvider<FailureClassifier> classifier, ObjectProvider<OutcomeFilter> outcomeFilter,
            ObjectProvider<IdemEngineCustomizer> customizers) {
        IdempotencyStore used = store;
        for (StoreDecorator d : decorators.orderedStream().collect(Collectors.toList())) {
            used = d.decorate(used);
        }
        IdempotencyEngineBuilder b = IdempotencyEngine.builder().store(used)
                .lease(properties.lease()).ttl(properties.ttl())
                .maxRequestBytes(properties.maxRequestBytes())
                .listener(IdempotencyListener.all(listeners.orderedStream().collect(Collectors.toList())));
        if (properties.inProgressWait() != null) {
            b.inProgress(InProgressPolicy.waitUpTo(properties.inProgressWait()));
        }
        if (properties.nearCache() > 0) {
            b.nearCache(properties.nearCache());
        }
        if (properties.maxAsyncCalls() != null) {
            b.maxAsyncCalls(properties.maxAsyncCalls());
        }
        if (properties.maxPendingWork() != null) {
            b.maxPendingWork(properties.maxPendingWork());
        }
        JsonCodec codec = jsonCodec.getIfUnique();
        if (codec != null) {
            b.jsonCodec(codec);
        } else {
            objectMapper.ifUnique(b::objectMapper);
        }
        classifier.ifUnique(b::failureClassifier);
        outcomeFilter.ifUnique(b::outcomeFilter);
        customizers.orderedStream().forEach(c -> c.customize(b));
        return b.build();
    }

    /**
     * Purges expired records on a schedule, for stores without native expiry.
     *
     * @param store the store
     * @param properties the {@code idem.purge.*} settings
     * @return the lifecycle bean running the purge
     */
    @Bean
    @ConditionalOnProperty(prefix = "idem.purge", name = "enabled", havingValue = "true", matchIfMissing = true)
    @ConditionalOnMissingBean(IdemPurgeScheduler.class)
    public IdemPurgeScheduler idemPurgeScheduler(IdempotencyStore store, IdemProperties properties) {
        return new IdemPurgeScheduler(store, properties.purge().interval(),
                properties.purge().batchSize());
    }

    /** The scoping rule, kept apart so that an application without Spring Web still gets it. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(PrincipalResolver.class)
    static class Principals {
        /**
         * The scoping rule of the filter and of {@code @Idempotent}.
         *
         * @param properties the settings ({@code idem.http.principal-header})
         * @return the resolver
         */
        @Bean
        @ConditionalOnMissingBean(PrincipalResolver.class)
        PrincipalResolver idemPrincipalResolver(IdemProperties properties) {
            return SpringPrincipals.standard(properties.http().principalHeader());
        }
    }
}
