package dev.idem.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.testsupport.MutableClock;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Service errors as they come off the wire: the request really goes to DynamoDB Local,
 * and an interceptor swaps the reply for the error DynamoDB sends when it throttles or
 * fails, so the SDK's own parsing and classification run before the store maps the error.
 */
@Timeout(60)
class ServiceErrorTest {
    private final MutableClock clock = new MutableClock();
    private final String table = DynamoDbStoreFixture.table("default");
    private final IdempotencyKey key = IdempotencyKey.of("err-" + UUID.randomUUID(), "op", "k");

    /** Replaces every reply with {@code status} and a DynamoDB JSON error of type {@code code}. */
    private static final class FailingReplies implements ExecutionInterceptor {
        final AtomicInteger attempts = new AtomicInteger();
        private final int status;
        private final String code;

        FailingReplies(int status, String code) {
            this.status = status;
            this.code = code;
        }

        @Override
        public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
            attempts.incrementAndGet();
            return context.httpResponse().toBuilder().statusCode(status).removeHeader("x-amz-crc32")
                    .putHeader("x-amzn-ErrorType", code).build();
        }

        @Override
        public Optional<InputStream> modifyHttpResponseContent(Context.ModifyHttpResponse context,
                ExecutionAttributes attributes) {
            String body = "{\"__type\":\"com.amazonaws.dynamodb.v20120810#" + code + "\",\"message\":\"injected\"}";
            return Optional.of(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
        }
    }

    private StoreUnavailableException failure(int status, String code, int maxAttempts) {
        FailingReplies replies = new FailingReplies(status, code);
        try (DynamoDbClient client = DynamoDbLocal.client(c -> c.addExecutionInterceptor(replies)
                .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder().maxAttempts(maxAttempts)
                        .backoffStrategy(a -> Duration.ofMillis(1))
                        .throttlingBackoffStrategy(a -> Duration.ofMillis(1)).build()))) {
            DynamoDbIdempotencyStore store = DynamoDbIdempotencyStore.builder().client(client).tableName(table)
                    .clock(clock).build();
            Throwable t = org.assertj.core.api.Assertions.catchThrowable(
                    () -> store.claim(key, new byte[] {1}, 1, Duration.ofSeconds(30), Duration.ofHours(1)));
            assertThat(t).isInstanceOf(StoreUnavailableException.class);
            assertThat(replies.attempts.get()).as("attempts").isEqualTo(maxAttempts);
            return (StoreUnavailableException) t;
        }
    }

    @Test
    void throttlingIsRetryableAfterTheClientsOwnRetries() {
        StoreUnavailableException e = failure(400, "ProvisionedThroughputExceededException", 3);
        assertThat(e.retryable()).isTrue();
        assertThat(e).hasMessageContaining("throttled").hasMessageContaining(table);
        assertThat(e.httpStatus()).isEqualTo(503);
    }

    @Test
    void aThrottledClaimMeansTheEnginesWorkDoesNotRun() {
        FailingReplies replies = new FailingReplies(400, "ThrottlingException");
        AtomicInteger runs = new AtomicInteger();
        try (DynamoDbClient client = DynamoDbLocal.client(c -> c.addExecutionInterceptor(replies)
                .retryStrategy(AwsRetryStrategy.doNotRetry()))) {
            IdempotencyEngine engine = IdempotencyEngine.builder().store(DynamoDbIdempotencyStore.builder()
                    .client(client).tableName(table).clock(clock).build()).clock(clock).build();
            assertThatThrownBy(() -> engine.execute(key, Map.of("a", 1), String.class, ctx -> {
                runs.incrementAndGet();
                return "ran";
            })).isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.retryable()).isTrue());
        }
        assertThat(runs.get()).isZero();
        assertThat(replies.attempts.get()).isEqualTo(1);
    }

    @Test
    void requestLimitExceededIsRetryable() {
        assertThat(failure(400, "RequestLimitExceeded", 2).retryable()).isTrue();
    }

    @Test
    void internalServerErrorIsRetryable() {
        StoreUnavailableException e = failure(500, "InternalServerError", 2);
        assertThat(e.retryable()).isTrue();
        assertThat(e).hasMessageContaining("service error");
    }

    @Test
    void accessDeniedIsNotRetryable() {
        StoreUnavailableException e = failure(400, "AccessDeniedException", 1);
        assertThat(e.retryable()).isFalse();
        assertThat(e).hasMessageContaining("AccessDeniedException");
    }

    @Test
    void aReplyThatCannotBeParsedIsNotRetryableAndNeverAbsent() {
        ExecutionInterceptor garbage = new ExecutionInterceptor() {
            @Override
            public Optional<InputStream> modifyHttpResponseContent(Context.ModifyHttpResponse context,
                    ExecutionAttributes attributes) {
                return Optional.of(new ByteArrayInputStream("{not json".getBytes(StandardCharsets.UTF_8)));
            }

            @Override
            public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes a) {
                return context.httpResponse().toBuilder().removeHeader("x-amz-crc32").build();
            }
        };
        try (DynamoDbClient client = DynamoDbLocal.client(c -> c.addExecutionInterceptor(garbage)
                .retryStrategy(AwsRetryStrategy.doNotRetry()))) {
            DynamoDbIdempotencyStore store = DynamoDbIdempotencyStore.builder().client(client).tableName(table)
                    .clock(clock).build();
            assertThatThrownBy(() -> store.find(key)).isInstanceOfSatisfying(StoreUnavailableException.class,
                    e -> assertThat(e.retryable()).as("%s caused by %s", e, e.getCause()).isFalse());
        }
    }
}
