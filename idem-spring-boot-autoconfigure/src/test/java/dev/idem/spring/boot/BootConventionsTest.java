package dev.idem.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.spring.Idempotent;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** The conventions a Spring Boot user expects of a starter, on Boot 3.5 (the Boot 4 suite runs the same wiring). */
@ExtendWith(OutputCaptureExtension.class)
class BootConventionsTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class,
                    IdemDisabledAutoConfiguration.class, AopAutoConfiguration.class))
            .withPropertyValues("idem.purge.enabled=false", "idem.aop.default-scope=test");

    /** A service behind an interface, so a JDK proxy can stand in for it. */
    public interface Payments {
        /**
         * Pays once per id.
         *
         * @param id the payment id
         * @return a message
         */
        String pay(String id);
    }

    /** The implementation. */
    public static class PaymentsImpl implements Payments {
        @Override
        @Idempotent(operation = "pay", key = "#id")
        public String pay(String id) {
            return "paid " + id;
        }
    }

    @Test
    void theAdviceFollowsSpringAopSettingsInsteadOfForcingClassProxies() {
        runner.withBean(Payments.class, PaymentsImpl::new).withPropertyValues("spring.aop.proxy-target-class=false")
                .run(ctx -> {
                    Payments payments = ctx.getBean(Payments.class);
                    assertThat(AopUtils.isJdkDynamicProxy(payments)).isTrue();
                    assertThat(payments.pay("p-1")).isEqualTo("paid p-1");
                    assertThat(ctx.getBean(IdempotencyEngine.class).store()
                            .find(IdempotencyKey.of("test", "pay", "p-1"))).isPresent();
                });
        // With AOP auto-configuration off, idem still proxies its own methods (never a silent no-op).
        runner.withBean(Payments.class, PaymentsImpl::new).withPropertyValues("spring.aop.auto=false")
                .run(ctx -> {
                    ctx.getBean(Payments.class).pay("p-2");
                    assertThat(ctx.getBean(IdempotencyEngine.class).store()
                            .find(IdempotencyKey.of("test", "pay", "p-2"))).isPresent();
                });
    }

    @Test
    void aMissingStoreClientIsReportedAsAnActionNotAStackTrace() throws IOException {
        runner.withPropertyValues("idem.store.kind=redis").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).rootCause().isInstanceOf(StoreClientMissingException.class);
            FailureAnalysis analysis = new IdemFailureAnalyzer().analyze(ctx.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("idem.store.kind is 'redis'").contains("RedisConnectionFactory")
                    .contains("spring-boot-starter-data-redis");
            assertThat(analysis.getAction()).contains("dev.idem:idem-store-redis").contains("idem.store.kind");
        });
        // Spring Boot finds the analyzer where it looks for analyzers.
        assertThat(resource("META-INF/spring.factories")).contains(IdemFailureAnalyzer.class.getName());
    }

    @Test
    void disablingIdemSaysWhatItTurnsOff(CapturedOutput output) throws Exception {
        // java.util.logging's console handler keeps the System.err it first saw: if an earlier test in
        // this JVM logged before the capture was installed, it would write past the capture.
        java.util.logging.LogManager.getLogManager().readConfiguration();
        runner.withBean(Payments.class, PaymentsImpl::new)
                .withPropertyValues("idem.enabled=false", "idem.http.routes=/payments")
                .run(ctx -> {
                    assertThat(ctx).doesNotHaveBean(IdempotencyEngine.class);
                    assertThat(ctx.getBean(Payments.class).pay("p-1")).isEqualTo("paid p-1");
                });
        assertThat(output.toString()).contains("idem is disabled (idem.enabled=false)")
                .contains("idem.http.routes=/payments covers nothing").contains("PaymentsImpl.pay");
    }

    @Test
    void storeSpansNameTheStoreBeanNotTheWrapperAroundIt() {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        SdkTracerProvider provider = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
        OpenTelemetry otel = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class))
                .withBean(OpenTelemetry.class, () -> otel)
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:kind;DB_CLOSE_DELAY=-1",
                        "idem.store.jdbc.create-table=true")
                .run(ctx -> {
                    ctx.getBean(IdempotencyEngine.class).execute(IdempotencyKey.of("s", "op", "k"), "{}", c -> 1);
                    assertThat(exporter.getFinishedSpanItems()).isNotEmpty();
                    for (SpanData span : exporter.getFinishedSpanItems()) {
                        assertThat(span.getAttributes().get(AttributeKey.stringKey("idem.store.kind")))
                                .as(span.getName()).isEqualTo("jdbc");
                    }
                });
        provider.close();
    }

    @Test
    void configurationMetadataHasDefaultsHintsAndTheAutoConfigurationMetadata() throws IOException {
        String metadata = resource("META-INF/spring-configuration-metadata.json");
        for (String name : List.of("idem.http.methods", "idem.http.order", "idem.max-request-bytes",
                "management.health.idem.enabled", "idem.http.transactional-routes", "idem.store.jdbc.dialect",
                "idem.max-async-calls", "idem.max-pending-work")) {
            assertThat(metadata).contains("\"" + name + "\"");
        }
        assertThat(metadata).contains("\"postgresql\"").contains("\"PATCH\"").contains("-90").contains("1048576");
        Properties autoconfigure = new Properties();
        try (InputStream in = getClass().getClassLoader()
                .getResourceAsStream("META-INF/spring-autoconfigure-metadata.properties")) {
            assertThat(in).as("spring-autoconfigure-metadata.properties").isNotNull();
            autoconfigure.load(in);
        }
        assertThat(autoconfigure.getProperty(IdemWebAutoConfiguration.class.getName() + ".ConditionalOnClass"))
                .contains("jakarta.servlet.Filter");
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = BootConventionsTest.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
