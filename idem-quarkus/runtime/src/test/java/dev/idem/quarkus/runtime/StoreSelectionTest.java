package dev.idem.quarkus.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import dev.idem.quarkus.IdemConfig;
import dev.idem.store.dynamodb.DynamoDbIdempotencyStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import io.smallrye.config.WithDefault;
import jakarta.enterprise.inject.Instance;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * How the extension picks and builds the store, without starting Quarkus (the @QuarkusTest
 * suites run it over PostgreSQL and Redis): the order of {@code auto}, the message of a missing
 * client, the DynamoDB store over the application's client, and the Redis server read from the
 * application's Quarkus Redis configuration.
 */
class StoreSelectionTest {
    private final IdemProducers producers = new IdemProducers();

    /** A store candidate of {@code kind} that has (or lacks) its client. */
    private static StoreCandidate candidate(IdemConfig.StoreKind kind, IdempotencyStore store) {
        return new StoreCandidate() {
            @Override
            public IdemConfig.StoreKind kind() {
                return kind;
            }

            @Override
            public Optional<IdempotencyStore> create(IdemConfig config) {
                return Optional.ofNullable(store);
            }
        };
    }

    @Test
    void autoTakesTheFirstClientTheApplicationHasInTheOrderDatasourceRedisDynamodb() {
        IdempotencyStore redis = MemoryIdempotencyStore.create();
        IdempotencyStore dynamo = MemoryIdempotencyStore.create();

        IdempotencyStore picked = producers.idempotencyStore(config(Map.of()), List.of(
                candidate(IdemConfig.StoreKind.DYNAMODB, dynamo), candidate(IdemConfig.StoreKind.JDBC, null),
                candidate(IdemConfig.StoreKind.REDIS, redis)));

        assertThat(picked).isSameAs(redis);
        assertThat(producers.idempotencyStore(config(Map.of()), List.of())).isInstanceOf(MemoryIdempotencyStore.class);
    }

    @Test
    void aNamedKindWithoutItsClientFailsStartupSayingWhatIsMissing() {
        IdemConfig jdbc = config(Map.of("store.kind", IdemConfig.StoreKind.JDBC));
        IdemConfig dynamodb = config(Map.of("store.kind", IdemConfig.StoreKind.DYNAMODB));

        assertThatThrownBy(() -> producers.idempotencyStore(jdbc, List.of(candidate(IdemConfig.StoreKind.JDBC, null))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("idem.store.kind=jdbc")
                .hasMessageContaining("datasource").hasMessageNotContaining("class path")
                .hasMessageContaining("\nAction: add quarkus-agroal");
        assertThatThrownBy(() -> producers.idempotencyStore(dynamodb, List.of()))
                .hasMessageContaining("DynamoDbClient").hasMessageContaining("idem-store-dynamodb is not on the class path")
                .hasMessageContaining("\nAction: add dev.idem:idem-store-dynamodb");
    }

    @Test
    void theTransactionalModeRefusesEveryStoreItsTransactionCannotHold() {
        IdemConfig transactional = config(Map.of("http.transactional", true));
        IdempotencyStore memory = MemoryIdempotencyStore.create();
        dev.idem.engine.IdempotencyEngine overMemory = dev.idem.engine.IdempotencyEngine.builder().store(memory).build();

        assertThatThrownBy(() -> producers.httpIdempotency(overMemory, transactional,
                dev.idem.http.PrincipalResolver.authenticatedUser(), memory))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("idem.http.transactional=true")
                .hasMessageContaining("the store is memory").hasMessageContaining("\nAction: use the JDBC store");

        // Built lazily: no connection is opened here.
        javax.sql.DataSource notAgroal = (javax.sql.DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });
        dev.idem.store.jdbc.JdbcIdempotencyStore jdbc = dev.idem.store.jdbc.JdbcIdempotencyStore.builder(notAgroal)
                .dialect(dev.idem.store.jdbc.JdbcDialect.H2).build();
        dev.idem.engine.IdempotencyEngine overJdbc = dev.idem.engine.IdempotencyEngine.builder().store(jdbc).build();
        assertThatThrownBy(() -> producers.httpIdempotency(overJdbc, transactional,
                dev.idem.http.PrincipalResolver.authenticatedUser(), jdbc))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("JTA transactional mode")
                .hasMessageContaining("takes its connections from a ").hasMessageContaining("not from an Agroal datasource")
                .hasMessageContaining("\nAction: build the JdbcIdempotencyStore bean over the AgroalDataSource <default>");
        assertThatThrownBy(() -> producers.httpIdempotency(overJdbc,
                config(Map.of("http.transactional", true, "http.routes", List.of("/charges"))),
                dev.idem.http.PrincipalResolver.authenticatedUser(), jdbc))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("idem.http.routes covers resource methods")
                .hasMessageContaining("\nAction: annotate the methods of [/charges] @Idempotent");
        assertThat(producers.httpIdempotency(overJdbc, config(Map.of()), dev.idem.http.PrincipalResolver.authenticatedUser(),
                jdbc).execution()).isNotInstanceOf(dev.idem.quarkus.jta.JtaHandlerExecution.class);
        overMemory.close();
        overJdbc.close();
    }

    @Test
    void theReadinessCheckNamesTheStoreByItsKindAsSpringDoes() {
        dev.idem.api.store.IdempotencyStore memory = MemoryIdempotencyStore.create();
        assertThat(StoreKinds.of(memory)).isEqualTo("memory");
        assertThat(StoreKinds.of(new dev.idem.api.store.ForwardingIdempotencyStore(memory) {
        })).isEqualTo("memory");
    }

    @Test
    void theDynamoDbStoreRunsOnTheApplicationsClient() {
        DynamoDbClient client = (DynamoDbClient) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DynamoDbClient.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });
        DynamoDbStoreCandidate candidate = new DynamoDbStoreCandidate(instance(client));

        Optional<IdempotencyStore> store = candidate.create(config(Map.of("store.dynamodb.table", "payments_idem")));

        assertThat(store).containsInstanceOf(DynamoDbIdempotencyStore.class);
        assertThat(new DynamoDbStoreCandidate(instance(null)).create(config(Map.of()))).isEmpty();
    }

    @Test
    void redisIsTheServerTheApplicationsQuarkusRedisClientIsConfiguredFor() {
        Config standalone = mpConfig(Map.of("quarkus.redis.hosts", "redis://127.0.0.1:1/3"));
        Config cluster = mpConfig(Map.of("quarkus.redis.hosts", "redis://10.0.0.1:7000,redis://10.0.0.2:7001",
                "quarkus.redis.client-type", "cluster", "idem.store.redis.timeout", "50ms"));
        Config none = mpConfig(Map.of());

        assertThat(new RedisStoreCandidate(instance(null), none).create(config(Map.of()))).isEmpty();
        assertThat(RedisStoreCandidate.properties(standalone, "idem:")).containsEntry("idem.store.redis.uri",
                "redis://127.0.0.1:1/3").containsEntry("idem.store.redis.prefix", "idem:");
        assertThat(RedisStoreCandidate.properties(cluster, "p:")).containsEntry("idem.store.redis.cluster",
                "10.0.0.1:7000,10.0.0.2:7001").containsEntry("idem.store.redis.timeout", "50ms")
                .doesNotContainKey("idem.store.redis.uri");
    }

    @Test
    void anExplicitRedisUriWinsOverTheQuarkusRedisHosts() {
        Config both = mpConfig(Map.of("quarkus.redis.hosts", "redis://127.0.0.1:1", "idem.store.redis.uri",
                "redis://127.0.0.1:2"));

        assertThat(RedisStoreCandidate.properties(both, "idem:")).containsEntry("idem.store.redis.uri",
                "redis://127.0.0.1:2");
        assertThatThrownBy(() -> new RedisStoreCandidate(instance(null), mpConfig(Map.of("idem.store.redis.uri", "nope")))
                .create(config(Map.of()))).isInstanceOfAny(IllegalStateException.class, StoreUnavailableException.class)
                .hasMessageContaining("idem.store.redis.uri");
    }

    // ---- test doubles of the CDI and configuration interfaces

    @SuppressWarnings("unchecked")
    private static <T> Instance<T> instance(T bean) {
        return (Instance<T>) Proxy.newProxyInstance(StoreSelectionTest.class.getClassLoader(),
                new Class<?>[] {Instance.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "isResolvable" -> bean != null;
                    case "isUnsatisfied" -> bean == null;
                    case "get" -> {
                        if (bean == null) {
                            throw new IllegalStateException("unsatisfied");
                        }
                        yield bean;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static Config mpConfig(Map<String, String> values) {
        return (Config) Proxy.newProxyInstance(StoreSelectionTest.class.getClassLoader(), new Class<?>[] {Config.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getPropertyNames" -> values.keySet();
                    case "getOptionalValue" -> Optional.ofNullable(values.get((String) args[0]));
                    case "getOptionalValues" -> Optional.ofNullable(values.get((String) args[0]))
                            .map(v -> List.of(v.split(",")));
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** {@link IdemConfig} with its declared defaults, and {@code values} by dotted method path. */
    static IdemConfig config(Map<String, Object> values) {
        return mapping(IdemConfig.class, "", values);
    }

    @SuppressWarnings("unchecked")
    private static <T> T mapping(Class<T> type, String path, Map<String, Object> values) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return method.getName().equals("toString") ? type.getSimpleName() : null;
            }
            String name = path + method.getName();
            Object value = values.get(name);
            Class<?> returns = method.getReturnType();
            if (returns.isInterface() && returns.getName().startsWith(IdemConfig.class.getName())) {
                return mapping(returns, name + ".", values);
            }
            if (returns == Optional.class) {
                return Optional.ofNullable(value);
            }
            if (returns == OptionalInt.class) {
                return value == null ? OptionalInt.empty() : OptionalInt.of((Integer) value);
            }
            return value != null ? value : defaultOf(method);
        });
    }

    private static Object defaultOf(Method method) {
        WithDefault d = method.getAnnotation(WithDefault.class);
        if (d == null) {
            throw new IllegalStateException(method + " has no default and no test value");
        }
        String v = d.value();
        Class<?> t = method.getReturnType();
        if (t == Duration.class) {
            return StoreProvider.parseDuration(method.getName(), v);
        }
        if (t == int.class) {
            return Integer.parseInt(v);
        }
        if (t == boolean.class) {
            return Boolean.parseBoolean(v);
        }
        if (t == IdemConfig.StoreKind.class) {
            return IdemConfig.StoreKind.valueOf(v.toUpperCase(java.util.Locale.ROOT));
        }
        if (t == List.class && method.getGenericReturnType() instanceof ParameterizedType) {
            return List.of(v.split(","));
        }
        return v;
    }
}
