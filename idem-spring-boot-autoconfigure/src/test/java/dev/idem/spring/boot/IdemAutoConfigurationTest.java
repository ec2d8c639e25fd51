package dev.idem.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.AsyncCallsFullException;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.micrometer.IdempotencyMetrics;
import dev.idem.spring.Idempotent;
import dev.idem.spring.MissingScopeException;
import dev.idem.spring.SpringTransactionalIdempotency;
import dev.idem.store.dynamodb.DynamoDbIdempotencyStore;
import dev.idem.store.jdbc.JdbcDialect;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

class IdemAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class,
                    AopAutoConfiguration.class))
            .withPropertyValues("idem.purge.enabled=false");

    @Test
    void withNothingElseTheMemoryStoreIsUsed() {
        runner.run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(IdempotencyStore.class)).isInstanceOf(MemoryIdempotencyStore.class);
            IdempotencyEngine engine = ctx.getBean(IdempotencyEngine.class);
            assertThat(engine.execute(IdempotencyKey.of("s", "op", "k"), "{}", c -> 1).value()).isEqualTo(1);
        });
    }

    @Test
    void aDataSourceGivesTheJdbcStoreWithItsDialectDetected() {
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:ctx;DB_CLOSE_DELAY=-1",
                        "idem.store.jdbc.create-table=true", "idem.store.jdbc.table=idem_ctx")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    JdbcIdempotencyStore store = (JdbcIdempotencyStore) ctx.getBean(IdempotencyStore.class);
                    assertThat(store.dialect()).isEqualTo(JdbcDialect.H2);
                    assertThat(store.tableName()).isEqualTo("idem_ctx");
                    IdempotencyEngine engine = ctx.getBean(IdempotencyEngine.class);
                    assertThat(engine.execute(IdempotencyKey.of("s", "op", "k"), "{}", c -> 1).replayed()).isFalse();
                    assertThat(engine.execute(IdempotencyKey.of("s", "op", "k"), "{}", c -> 2).value()).isEqualTo(1);
                    assertThat(ctx).hasSingleBean(SpringTransactionalIdempotency.class);
                });
    }

    @Test
    @SuppressWarnings("deprecation") // JedisPooled is the client most applications still define
    void aJedisClientGivesTheRedisStore() {
        runner.withBean(UnifiedJedis.class, () -> new JedisPooled("localhost", 1), b -> b.setDestroyMethodName("close"))
                .withPropertyValues("idem.store.redis.prefix=app:")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx.getBean(IdempotencyStore.class)).isInstanceOf(RedisIdempotencyStore.class);
                });
    }

    @Test
    void aDynamoDbClientGivesTheDynamoDbStore() {
        runner.withBean(DynamoDbClient.class, IdemAutoConfigurationTest::offlineDynamoDb)
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx.getBean(IdempotencyStore.class)).isInstanceOf(DynamoDbIdempotencyStore.class);
                });
    }

    @Test
    void theAsyncBoundsAreProperties() {
        runner.withPropertyValues("idem.store.kind=memory", "idem.max-async-calls=1", "idem.max-pending-work=2m")
                .run(ctx -> {
                    IdempotencyEngine engine = ctx.getBean(IdempotencyEngine.class);
                    CompletableFuture<String> pending = new CompletableFuture<>();
                    CompletableFuture<Result<String>> first = engine.executeAsync(IdempotencyKey.of("s", "op", "k1"),
                            "{}", String.class, CallOptions.defaults(), c -> pending);
                    // The one slot is taken: the next call is refused at once and runs nothing.
                    assertThatThrownBy(() -> engine.executeAsync(IdempotencyKey.of("s", "op", "k2"), "{}",
                            String.class, CallOptions.defaults(), c -> CompletableFuture.completedFuture("no"))
                            .get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(AsyncCallsFullException.class);
                    pending.complete("done");
                    assertThat(first.get(20, TimeUnit.SECONDS).value()).isEqualTo("done");
                });
        runner.withPropertyValues("idem.max-async-calls=0").run(ctx -> assertThat(ctx).hasFailed()
                .getFailure().rootCause().hasMessageContaining("maxAsyncCalls"));
    }

    @Test
    @SuppressWarnings("deprecation")
    void aNamedKindWinsOverTheOrderOfPreference() {
        runner.withBean(UnifiedJedis.class, () -> new JedisPooled("localhost", 1), b -> b.setDestroyMethodName("close"))
                .withBean(DynamoDbClient.class, IdemAutoConfigurationTest::offlineDynamoDb)
                .withPropertyValues("idem.store.kind=dynamodb")
                .run(ctx -> assertThat(ctx.getBean(IdempotencyStore.class))
                        .isInstanceOf(DynamoDbIdempotencyStore.class));
    }

    @Test
    void aNamedKindWithoutItsClientFailsStartupSayingWhatIsMissing() {
        runner.withPropertyValues("idem.store.kind=redis").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).rootCause().hasMessageContaining("RedisConnectionFactory");
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnStoreOrEngine() {
        MemoryIdempotencyStore mine = MemoryIdempotencyStore.create();
        runner.withBean(IdempotencyStore.class, () -> mine).run(ctx -> {
            assertThat(ctx).hasSingleBean(IdempotencyStore.class);
            ctx.getBean(IdempotencyEngine.class).execute(IdempotencyKey.of("s", "op", "mine"), "{}", c -> 1);
            assertThat(mine.find(IdempotencyKey.of("s", "op", "mine"))).isPresent();
        });
        IdempotencyEngine myEngine = IdempotencyEngine.builder().store(mine).build();
        runner.withBean(IdempotencyEngine.class, () -> myEngine).run(ctx -> {
            assertThat(ctx).hasSingleBean(IdempotencyEngine.class);
            assertThat(ctx.getBean(IdempotencyEngine.class)).isSameAs(myEngine);
        });
        runner.withPropertyValues("idem.enabled=false").run(ctx -> assertThat(ctx)
                .doesNotHaveBean(IdempotencyEngine.class));
    }

    @Test
    void metricsAreBoundWhenARegistryExists() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(ctx -> {
            IdempotencyEngine engine = ctx.getBean(IdempotencyEngine.class);
            engine.execute(IdempotencyKey.of("s", "op", "k"), "{}", c -> 1);
            engine.execute(IdempotencyKey.of("s", "op", "k"), "{}", c -> 1);
            MeterRegistry registry = ctx.getBean(MeterRegistry.class);
            assertThat(registry.get(IdempotencyMetrics.EVENTS).tags("outcome", "replayed", "store", "memory")
                    .counter().count()).isEqualTo(1);
        });
    }

    @Test
    @SuppressWarnings("try") // the scope is only opened and closed
    void tracingAnnotatesTheCurrentSpanAndWrapsStoreCallsWhenOpenTelemetryExists() {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        SdkTracerProvider provider = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
        OpenTelemetry otel = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
        runner.withBean(OpenTelemetry.class, () -> otel).run(ctx -> {
            IdempotencyEngine engine = ctx.getBean(IdempotencyEngine.class);
            Span request = otel.getTracer("test").spanBuilder("request").startSpan();
            try (Scope ignored = request.makeCurrent()) {
                engine.execute(IdempotencyKey.of("s", "op", "k"), "{}", c -> 1);
            } finally {
                request.end();
            }
            assertThat(exporter.getFinishedSpanItems()).extracting(SpanData::getName)
                    .containsExactly("idem.store.claim", "idem.store.complete", "request");
            SpanData top = exporter.getFinishedSpanItems().get(2);
            assertThat(top.getAttributes().get(AttributeKey.stringKey("idem.outcome"))).isEqualTo("executed");
        });
        provider.close();
    }

    @Test
    void thePurgeRunsForStoresWithoutNativeExpiryOnly() {
        ApplicationContextRunner plain = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class));
        plain.withPropertyValues("idem.store.kind=memory")
                .run(ctx -> assertThat(ctx.getBean(IdemPurgeScheduler.class).isRunning()).isFalse());
        plain.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:purge;DB_CLOSE_DELAY=-1",
                        "idem.store.jdbc.create-table=true", "idem.purge.interval=1h")
                .run(ctx -> {
                    IdemPurgeScheduler purge = ctx.getBean(IdemPurgeScheduler.class);
                    assertThat(purge.isRunning()).isTrue();
                    assertThat(purge.purgeOnce()).isZero();
                });
    }

    @Test
    void idempotentMethodsRunOncePerKey() {
        runner.withUserConfiguration(ChargeServiceConfig.class).withPropertyValues("idem.aop.default-scope=batch")
                .run(ctx -> {
            ChargeService service = ctx.getBean(ChargeService.class);
            ChargeRequest request = new ChargeRequest("c-1", 1050);
            Receipt first = service.charge(request);
            Receipt again = service.charge(new ChargeRequest("c-1", 1050));
            assertThat(again).isEqualTo(first);
            assertThat(service.runs()).isEqualTo(1);
            assertThatThrownBy(() -> service.charge(new ChargeRequest("c-1", 9999)))
                    .isInstanceOf(KeyReusedException.class);
            // a checked exception is rethrown as the method threw it, and releases the key
            assertThatThrownBy(() -> service.refund("r-1", true)).isInstanceOf(IOException.class);
            assertThat(service.refund("r-1", false)).isEqualTo("refunded r-1");
            assertThat(service.refund("r-1", false)).isEqualTo("refunded r-1");
            assertThat(service.refunds()).isEqualTo(2);
        });
    }

    @Test
    void anIdempotentCallWithoutAnyScopeIsRefusedNotPutInASharedDefaultKeySpace() {
        runner.withUserConfiguration(ChargeServiceConfig.class).run(ctx -> {
            ChargeService service = ctx.getBean(ChargeService.class);
            assertThatThrownBy(() -> service.charge(new ChargeRequest("c-1", 1050)))
                    .isInstanceOf(MissingScopeException.class).hasMessageContaining("idem.aop.default-scope")
                    .satisfies(e -> assertThat(((MissingScopeException) e).httpStatus()).isEqualTo(401));
            assertThat(service.runs()).isZero();
            assertThat(ctx.getBean(IdempotencyStore.class).find(IdempotencyKey.of("default", "create-charge", "c-1")))
                    .isEmpty();
        });
    }

    private static DynamoDbClient offlineDynamoDb() {
        return DynamoDbClient.builder().region(Region.US_EAST_1).endpointOverride(URI.create("http://localhost:1"))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b"))).build();
    }

    /** A request with an id. */
    public record ChargeRequest(String id, long amountCents) {
    }

    /** A result that round-trips through JSON. */
    public record Receipt(String chargeId, long amountCents, int serial) {
    }

    /** A service with idempotent methods. */
    public static class ChargeService {
        private final AtomicInteger runs = new AtomicInteger();
        private final AtomicInteger refunds = new AtomicInteger();

        /**
         * How often charge ran.
         *
         * @return the count
         */
        public int runs() {
            return runs.get();
        }

        /**
         * How often refund ran.
         *
         * @return the count
         */
        public int refunds() {
            return refunds.get();
        }

        /**
         * Charges once per request id.
         *
         * @param request the charge
         * @return the receipt
         */
        @Idempotent(operation = "create-charge", key = "#request.id")
        public Receipt charge(ChargeRequest request) {
            return new Receipt("ch_" + request.id(), request.amountCents(), runs.incrementAndGet());
        }

        /**
         * Refunds once per id, failing on demand.
         *
         * @param id the refund id
         * @param fail whether to fail
         * @return a message
         * @throws IOException when asked to fail
         */
        @Idempotent(operation = "refund", key = "#id", scope = "'tenant-a'", request = "#id")
        public String refund(String id, boolean fail) throws IOException {
            refunds.incrementAndGet();
            if (fail) {
                throw new IOException("gateway down");
            }
            return "refunded " + id;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ChargeServiceConfig {
        @Bean
        ChargeService chargeService() {
            return new ChargeService();
        }
    }
}
