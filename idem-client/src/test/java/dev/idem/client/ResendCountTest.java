package dev.idem.client;

import static dev.idem.client.FaultServer.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * OpenTelemetry's {@code http.request.resend_count} on the span current where a request is sent,
 * once per re-sent attempt; nothing without a current span; and a client that works unchanged where
 * the OpenTelemetry API is absent (an optional dependency).
 */
class ResendCountTest {
    private static final String ATTRIBUTE = "http.request.resend_count";
    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
    private final Tracer tracer = provider.get("test");
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private FakeTime time;
    private FaultServer server;

    @BeforeEach
    void start() throws Exception {
        time = new FakeTime();
        server = FaultServer.start();
    }

    @AfterEach
    void stop() {
        server.close();
        provider.close();
    }

    private IdempotentHttpClient client() {
        return IdempotentHttpClient.newBuilder(http).budget(RetryBudget.unlimited())
                .policy(time.policy().maxAttempts(4).baseDelay(Duration.ofMillis(10)).maxDelay(Duration.ofMillis(10))
                        .deadline(Duration.ofSeconds(60)).random(FixedRandom.highest()).build())
                .build();
    }

    private HttpRequest post(String path) {
        return HttpRequest.newBuilder(server.uri(path)).timeout(Duration.ofSeconds(5))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
    }

    @SuppressWarnings("try") // the span is current while the block runs; the scope is never read
    private SpanData sendInSpan(boolean async) throws Exception {
        Span span = tracer.spanBuilder("charge").startSpan();
        try (Scope scope = span.makeCurrent()) {
            if (async) {
                client().sendAsync(post("/pay"), BodyHandlers.ofString()).get(10, TimeUnit.SECONDS);
            } else {
                client().send(post("/pay"), BodyHandlers.ofString());
            }
        } finally {
            span.end();
        }
        return spans.getFinishedSpanItems().get(0);
    }

    @Test
    void eachReSentAttemptSetsTheCountOnTheCurrentSpan() throws Exception {
        server.script("/pay", status(503), status(503), status(200));

        SpanData span = sendInSpan(false);

        assertThat(span.getAttributes().get(io.opentelemetry.api.common.AttributeKey.longKey(ATTRIBUTE)))
                .isEqualTo(2L);
        assertThat(server.keys("/pay")).hasSize(3);
    }

    @Test
    void asyncAttemptsOnOtherThreadsRecordOnTheSpanCurrentWhereTheRequestWasSent() throws Exception {
        server.script("/pay", status(503), status(200));

        SpanData span = sendInSpan(true);

        assertThat(span.getAttributes().get(io.opentelemetry.api.common.AttributeKey.longKey(ATTRIBUTE)))
                .isEqualTo(1L);
    }

    @Test
    void aFirstAttemptThatSucceedsSetsNothing() throws Exception {
        server.script("/pay", status(200));

        SpanData span = sendInSpan(false);

        assertThat(span.getAttributes().get(io.opentelemetry.api.common.AttributeKey.longKey(ATTRIBUTE))).isNull();
    }

    @Test
    void withoutACurrentSpanNothingIsRecordedAndNothingFails() throws Exception {
        server.script("/pay", status(503), status(200));

        assertThat(client().send(post("/pay"), BodyHandlers.ofString()).attempts()).isEqualTo(2);
        assertThat(spans.getFinishedSpanItems()).isEmpty();
    }

    /**
     * The client in a class loader that has everything of this test's class path but
     * OpenTelemetry: it sends and retries as ever.
     */
    @Test
    void theClientWorksWhereOpenTelemetryIsAbsent() throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.contains("opentelemetry")) {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        server.script("/pay", status(503), status(200));
        try (URLClassLoader isolated = new URLClassLoader(urls.toArray(URL[]::new),
                ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> isolated.loadClass("io.opentelemetry.api.trace.Span"))
                    .isInstanceOf(ClassNotFoundException.class);
            Method send = isolated.loadClass(WithoutOpenTelemetry.class.getName()).getMethod("send", String.class);

            assertThat(send.invoke(null, server.uri("/pay").toString())).isEqualTo(2);
        }
    }

    /** Runs in the isolated class loader. */
    public static final class WithoutOpenTelemetry {
        private WithoutOpenTelemetry() {
        }

        public static int send(String uri) throws Exception {
            IdempotentHttpClient client = IdempotentHttpClient.newBuilder(HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1).build()).budget(RetryBudget.unlimited())
                    .policy(RetryPolicy.builder().maxAttempts(3).baseDelay(Duration.ofMillis(1))
                            .maxDelay(Duration.ofMillis(1)).build())
                    .build();
            return client.send(HttpRequest.newBuilder(java.net.URI.create(uri)).POST(HttpRequest.BodyPublishers
                    .ofString("{}")).build(), BodyHandlers.ofString()).attempts();
        }
    }
}
