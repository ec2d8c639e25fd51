package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HttpRetryClassifierTest {

    private static final String IN_PROGRESS =
            "{\"type\":\"https://idem.dev/problems/request-in-progress\",\"title\":\"In progress\","
                    + "\"status\":409}";
    private static final String MISMATCH =
            "{\"type\":\"https://idem.dev/problems/key-reused\",\"title\":\"Key reused\",\"status\":409}";

    private final HttpRetryClassifier classifier = HttpRetryClassifier.standard();

    @ParameterizedTest
    @ValueSource(ints = {429, 500, 502, 503, 504})
    void retriesOverloadAndGatewayStatuses(int status) {
        RetryDecision d = classifier.classifyResult(StubResponse.of(status, ""));
        assertThat(d.shouldRetry()).isTrue();
        assertThat(d.reason()).isEqualTo("HTTP " + status);
    }

    @ParameterizedTest
    @ValueSource(ints = {200, 201, 204, 301, 400, 401, 403, 404, 405, 408, 410, 412, 413, 422, 501, 505})
    void doesNotRetryOtherStatuses(int status) {
        assertThat(classifier.classifyResult(StubResponse.of(status, "")).shouldRetry()).isFalse();
    }

    @Test
    void retries409WithRetryAfter() {
        assertThat(classifier.classifyResult(StubResponse.of(409, "", "Retry-After", "1")).shouldRetry())
                .isTrue();
    }

    @Test
    void retries409WhoseProblemTypeIsRequestInProgress() {
        String problem = "application/problem+json; charset=utf-8";
        assertThat(
                        classifier
                                .classifyResult(StubResponse.of(409, IN_PROGRESS, "Content-Type", problem))
                                .shouldRetry())
                .isTrue();
        byte[] bytes = IN_PROGRESS.getBytes(StandardCharsets.UTF_8);
        assertThat(
                        classifier
                                .classifyResult(StubResponse.of(409, bytes, "Content-Type", "application/problem+json"))
                                .shouldRetry())
                .isTrue();
    }

    @Test
    void doesNotRetryA500ThatEveryRetryWouldGetAgain() {
        String notStored = "{\"type\":\"https://idem.dev/problems/outcome-not-stored\",\"status\":500}";
        assertThat(classifier.classifyResult(
                StubResponse.of(500, notStored, "Content-Type", "application/problem+json")).shouldRetry())
                .isFalse();
        String failed = "{\"type\":\"https://idem.dev/problems/handler-failed\",\"status\":500}";
        assertThat(classifier.classifyResult(
                StubResponse.of(500, failed, "Content-Type", "application/problem+json")).shouldRetry())
                .isTrue();
    }

    @Test
    void doesNotRetryARealConflict() {
        assertThat(classifier.classifyResult(StubResponse.of(409, "")).shouldRetry()).isFalse();
        assertThat(
                        classifier
                                .classifyResult(
                                        StubResponse.of(409, MISMATCH, "Content-Type", "application/problem+json"))
                                .shouldRetry())
                .isFalse();
        // The in-progress type only counts in a problem document.
        assertThat(
                        classifier
                                .classifyResult(StubResponse.of(409, IN_PROGRESS, "Content-Type", "text/plain"))
                                .shouldRetry())
                .isFalse();
    }

    @Test
    void retriesTransientTransportFailures() {
        assertThat(classifier.classifyFailure(new ConnectException("refused")).shouldRetry()).isTrue();
        assertThat(classifier.classifyFailure(new HttpConnectTimeoutException("t")).shouldRetry()).isTrue();
        assertThat(classifier.classifyFailure(new HttpTimeoutException("t")).shouldRetry()).isTrue();
        assertThat(classifier.classifyFailure(new SocketTimeoutException()).shouldRetry()).isTrue();
        assertThat(classifier.classifyFailure(new IOException("Connection reset")).shouldRetry()).isTrue();
        assertThat(classifier.classifyFailure(new EOFException("EOF reached")).shouldRetry()).isTrue();
        assertThat(classifier.classifyFailure(new TimeoutException()).shouldRetry()).isTrue();
        assertThat(
                        classifier
                                .classifyFailure(new CompletionException(new ConnectException("refused")))
                                .shouldRetry())
                .isTrue();
    }

    @Test
    void doesNotRetryConfigurationAndProgrammingErrors() {
        assertThat(classifier.classifyFailure(new SSLHandshakeException("bad cert")).shouldRetry())
                .isFalse();
        assertThat(classifier.classifyFailure(new IllegalArgumentException("bad uri")).shouldRetry())
                .isFalse();
    }

    @Test
    void reasonsNameTheKindOfFailure() {
        assertThat(classifier.classifyFailure(new HttpConnectTimeoutException("x")).reason())
                .startsWith("connect timeout");
        assertThat(classifier.classifyFailure(new HttpTimeoutException("x")).reason())
                .startsWith("timeout");
        assertThat(classifier.classifyFailure(new ConnectException("x")).reason())
                .startsWith("connect failure");
    }

    @Test
    void detectsReplayHeaders() {
        assertThat(
                        IdempotentResponse.isReplayed(
                                StubResponse.of(200, "", "Idempotency-Status", "Replayed").headers()))
                .isTrue();
        assertThat(
                        IdempotentResponse.isReplayed(
                                StubResponse.of(200, "", "Idempotent-Replayed", "true").headers()))
                .isTrue();
        assertThat(
                        IdempotentResponse.isReplayed(
                                StubResponse.of(200, "", "Idempotency-Status", "stored").headers()))
                .isFalse();
        assertThat(IdempotentResponse.isReplayed(StubResponse.of(200, "").headers())).isFalse();
    }
}
