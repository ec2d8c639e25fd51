package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.time.Sleeper;
import dev.idem.client.internal.RetrySession;
import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RetrierTest {

    private final FakeTime time = new FakeTime();
    private final RecordingListener listener = new RecordingListener();

    private Retrier retrier(RetryPolicy policy) {
        return Retrier.builder()
                .policy(policy)
                .budget(RetryBudget.unlimited())
                .listener(listener)
                .keyGenerator(new CountingKeys())
                .build();
    }

    private RetryPolicy.Builder policy() {
        return time.policy()
                .maxAttempts(4)
                .baseDelay(Duration.ofMillis(100))
                .maxDelay(Duration.ofSeconds(1))
                .random(FixedRandom.highest());
    }

    @Test
    void everyAttemptOfOneCallSeesTheSameKeyAndANewCallGetsANewOne() throws Exception {
        Retrier retrier = retrier(policy().build());
        List<Attempt> seen = new ArrayList<>();
        RetryResult<String> result =
                retrier.execute(
                        attempt -> {
                            seen.add(attempt);
                            if (attempt.number() < 3) {
                                throw new ConnectException("refused");
                            }
                            return "ok";
                        });
        assertThat(result.value()).isEqualTo("ok");
        assertThat(result.attempts()).isEqualTo(3);
        assertThat(seen).extracting(Attempt::idempotencyKey).containsOnly("key-1");
        assertThat(seen).extracting(Attempt::number).containsExactly(1, 2, 3);
        assertThat(retrier.execute(attempt -> attempt.idempotencyKey()).value()).isEqualTo("key-2");
    }

    @Test
    void delaysFollowFullJitterCeilingsAndStopAtMaxAttempts() {
        Retrier retrier = retrier(policy().build());
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(
                        () ->
                                retrier.call(
                                        () -> {
                                            throw new IOException("reset #" + calls.incrementAndGet());
                                        }))
                .isInstanceOf(IOException.class)
                .hasMessage("reset #4")
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(3));
        assertThat(calls).hasValue(4);
        assertThat(time.sleeps())
                .containsExactly(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400));
        assertThat(listener.events()).last().isEqualTo("gave up after 4: MAX_ATTEMPTS");
    }

    @Test
    void listenerSeesAttemptsAndScheduledRetriesInOrder() throws Exception {
        Retrier retrier = retrier(policy().build());
        retrier.execute(
                attempt -> {
                    if (attempt.number() == 1) {
                        throw new ConnectException("refused");
                    }
                    return 1;
                });
        assertThat(listener.events())
                .containsExactly(
                        "attempt 1",
                        "retry after 1 in 100ms: connect failure (ConnectException: refused)",
                        "attempt 2");
    }

    @Test
    void nonRetryableFailureIsThrownAfterOneAttempt() {
        Retrier retrier = retrier(policy().build());
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(
                        () ->
                                retrier.call(
                                        () -> {
                                            calls.incrementAndGet();
                                            throw new IllegalArgumentException("bad input");
                                        }))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(calls).hasValue(1);
        assertThat(time.sleeps()).isEmpty();
    }

    @Test
    void retryableResultIsReturnedWhenAttemptsRunOut() throws Exception {
        Retrier retrier = retrier(policy().maxAttempts(2).build());
        RetryClassifier<String> unavailable = RetryClassifier.of("UNAVAILABLE"::equals, e -> false);
        RetryResult<String> result = retrier.execute(attempt -> "UNAVAILABLE", unavailable);
        assertThat(result.value()).isEqualTo("UNAVAILABLE");
        assertThat(result.attempts()).isEqualTo(2);
    }

    @Test
    void deadlineBoundsTheWholeCall() {
        Duration deadline = Duration.ofSeconds(2);
        Retrier retrier = retrier(policy().maxAttempts(100).deadline(deadline).build());
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(
                        () ->
                                retrier.call(
                                        () -> {
                                            calls.incrementAndGet();
                                            time.advance(Duration.ofMillis(50)); // each attempt takes a while
                                            throw new IOException("timeout");
                                        }))
                .isInstanceOf(IOException.class);
        assertThat(time.elapsed()).isLessThanOrEqualTo(deadline);
        assertThat(calls.get()).isBetween(2, 99);
        assertThat(listener.events()).last().asString().endsWith("DEADLINE");
    }

    @Test
    void retryAfterHintRaisesTheDelay() throws Exception {
        Retrier retrier = retrier(policy().build());
        RetryClassifier<String> throttled =
                new RetryClassifier<>() {
                    @Override
                    public RetryDecision classifyResult(String result) {
                        return result.equals("slow down")
                                ? RetryDecision.retryAfter("throttled", Duration.ofSeconds(3))
                                : RetryDecision.doNotRetry();
                    }

                    @Override
                    public RetryDecision classifyFailure(Throwable failure) {
                        return RetryDecision.doNotRetry();
                    }
                };
        RetryResult<String> result =
                retrier.execute(a -> a.number() == 1 ? "slow down" : "done", throttled);
        assertThat(result.value()).isEqualTo("done");
        assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(3));

        Retrier ignoring = retrier(policy().honorRetryAfter(false).build());
        ignoring.execute(a -> a.number() == 1 ? "slow down" : "done", throttled);
        assertThat(time.sleeps()).containsExactly(Duration.ofSeconds(3), Duration.ofMillis(100));
    }

    @Test
    void retryAfterBeyondTheDeadlineGivesUpAtOnce() throws Exception {
        Retrier retrier = retrier(policy().deadline(Duration.ofSeconds(5)).build());
        RetryClassifier<String> hinting =
                new RetryClassifier<>() {
                    @Override
                    public RetryDecision classifyResult(String result) {
                        return RetryDecision.retryAfter("throttled", Duration.ofSeconds(60));
                    }

                    @Override
                    public RetryDecision classifyFailure(Throwable failure) {
                        return RetryDecision.doNotRetry();
                    }
                };
        RetryResult<String> result = retrier.execute(a -> "busy", hinting);
        assertThat(result.attempts()).isEqualTo(1);
        assertThat(time.sleeps()).isEmpty();
        assertThat(listener.events()).containsExactly("attempt 1", "gave up after 1: DEADLINE");
    }

    @Test
    void exhaustedBudgetReturnsTheFailureAtOnce() {
        RetryBudget budget =
                RetryBudget.builder()
                        .ratio(0)
                        .minRetriesPerSecond(1)
                        .window(Duration.ofSeconds(1))
                        .ticker(time)
                        .build();
        Retrier retrier =
                Retrier.builder().policy(policy().build()).budget(budget).listener(listener).build();
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(
                        () ->
                                retrier.call(
                                        () -> {
                                            calls.incrementAndGet();
                                            throw new ConnectException("down");
                                        }))
                .isInstanceOf(ConnectException.class);
        assertThat(calls).hasValue(2);
        assertThat(listener.events())
                .endsWith("budget exhausted after 2", "gave up after 2: RETRY_BUDGET");
    }

    @Test
    void interruptionStopsTheLoop() {
        Retrier retrier = retrier(policy().build());
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(
                        () ->
                                retrier.call(
                                        () -> {
                                            calls.incrementAndGet();
                                            throw new InterruptedException();
                                        }))
                .isInstanceOf(InterruptedException.class);
        assertThat(calls).hasValue(1);

        Sleeper interrupted =
                d -> {
                    throw new InterruptedException("woken");
                };
        Retrier sleepy = retrier(policy().sleeper(interrupted).build());
        assertThatThrownBy(
                        () ->
                                sleepy.call(
                                        () -> {
                                            throw new ConnectException("down");
                                        }))
                .isInstanceOf(InterruptedException.class)
                .hasMessage("woken");
    }

    @Test
    void aThrowingListenerIsLoggedAndDoesNotChangeTheOutcome() throws Exception {
        RetryListener broken =
                new RetryListener() {
                    @Override
                    public void onAttempt(Attempt attempt) {
                        throw new IllegalStateException("listener bug");
                    }
                };
        Retrier retrier =
                Retrier.builder()
                        .policy(policy().build())
                        .budget(RetryBudget.unlimited())
                        .listener(broken)
                        .build();
        // System.Logger is backed by java.util.logging here; capture instead of printing.
        Logger jul = Logger.getLogger(RetrySession.class.getName());
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Handler capture =
                new Handler() {
                    @Override
                    public void publish(LogRecord record) {
                        logged.add(record);
                    }

                    @Override
                    public void flush() {}

                    @Override
                    public void close() {}
                };
        boolean parents = jul.getUseParentHandlers();
        jul.addHandler(capture);
        jul.setUseParentHandlers(false);
        try {
            String value =
                    retrier
                            .execute(
                                    a -> {
                                        if (a.number() == 1) {
                                            throw new ConnectException("x");
                                        }
                                        return "ok";
                                    })
                            .value();
            assertThat(value).isEqualTo("ok");
        } finally {
            jul.removeHandler(capture);
            jul.setUseParentHandlers(parents);
        }
        assertThat(logged)
                .hasSize(2)
                .allSatisfy(r -> assertThat(r.getThrown()).hasMessage("listener bug"));
    }

    @Test
    void callerSuppliedKeyIsUsedForEveryAttempt() throws Exception {
        Retrier retrier = retrier(policy().build());
        List<String> keys = new ArrayList<>();
        RetryResult<String> result =
                retrier.execute(
                        "persisted-key",
                        a -> {
                            keys.add(a.idempotencyKey());
                            if (a.number() < 2) {
                                throw new IOException("reset");
                            }
                            return "ok";
                        },
                        RetryClassifier.transientFailures());
        assertThat(result.idempotencyKey()).isEqualTo("persisted-key");
        assertThat(keys).containsExactly("persisted-key", "persisted-key");
    }

    /** Predictable keys so tests can tell calls apart. */
    private static final class CountingKeys implements IdempotencyKeyGenerator {
        private final AtomicInteger next = new AtomicInteger();

        @Override
        public String newKey() {
            return "key-" + next.incrementAndGet();
        }
    }
}
