package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RetryBudgetTest {

    private final FakeTime time = new FakeTime();

    private RetryBudget.Builder budget() {
        return RetryBudget.builder().ticker(time);
    }

    @Test
    void settersRejectBadValuesNamingThem() {
        RetryBudget.Builder b = RetryBudget.builder();
        assertThatThrownBy(() -> b.ratio(-0.1)).hasMessageContaining("ratio").hasMessageContaining("-0.1");
        assertThatThrownBy(() -> b.ratio(1.5)).hasMessageContaining("1.5");
        assertThatThrownBy(() -> b.ratio(Double.NaN)).hasMessageContaining("NaN");
        assertThatThrownBy(() -> b.minRetriesPerSecond(-1)).hasMessageContaining("minRetriesPerSecond");
        assertThatThrownBy(() -> b.window(Duration.ofMillis(999))).hasMessageContaining("PT0.999S");
        assertThatThrownBy(() -> b.ticker(null)).hasMessageContaining("ticker");
    }

    @Test
    void buildRejectsABudgetThatCanNeverRetry() {
        assertThatThrownBy(() -> RetryBudget.builder().ratio(0).minRetriesPerSecond(0).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("maxAttempts(1)");
    }

    @Test
    void retriesAreCappedByTheRatioOfRequests() {
        RetryBudget b = budget().ratio(0.1).minRetriesPerSecond(0).build();
        for (int i = 0; i < 100; i++) {
            b.recordRequest();
        }
        assertThat(b.availableRetries()).isEqualTo(10);
        for (int i = 0; i < 10; i++) {
            assertThat(b.tryAcquireRetry()).as("retry %d", i).isTrue();
        }
        assertThat(b.tryAcquireRetry()).isFalse();
        assertThat(b.availableRetries()).isZero();
    }

    @Test
    void theFloorAllowsRetriesWithoutTraffic() {
        RetryBudget b = budget().ratio(0).minRetriesPerSecond(2).window(Duration.ofSeconds(5)).build();
        int granted = 0;
        while (b.tryAcquireRetry()) {
            granted++;
            assertThat(granted).isLessThan(1000);
        }
        assertThat(granted).isEqualTo(10);
    }

    // The window is ten one-second slots here: traffic of slot 0 counts until the clock reaches
    // slot 10, that is exactly one window after slot 0 began, and not a nanosecond longer.
    @Test
    void oldRequestsLeaveTheWindowExactlyWhenItRolls() {
        RetryBudget b = budget().ratio(0.5).minRetriesPerSecond(0).window(Duration.ofSeconds(10)).build();
        for (int i = 0; i < 10; i++) {
            b.recordRequest();
        }
        assertThat(b.availableRetries()).isEqualTo(5);

        time.advance(Duration.ofSeconds(10).minusNanos(1));
        assertThat(b.availableRetries()).as("the last instant of the window still counts them").isEqualTo(5);

        time.advance(Duration.ofNanos(1));
        assertThat(b.availableRetries()).as("one window later the requests are gone").isZero();
        assertThat(b.tryAcquireRetry()).isFalse();
    }

    @Test
    void oldRetriesLeaveTheWindowExactlyWhenItRolls() {
        RetryBudget b = budget().ratio(0).minRetriesPerSecond(1).window(Duration.ofSeconds(10)).build();
        for (int i = 0; i < 10; i++) {
            assertThat(b.tryAcquireRetry()).as("retry %d", i).isTrue();
        }
        assertThat(b.tryAcquireRetry()).isFalse();

        time.advance(Duration.ofSeconds(10).minusNanos(1));
        assertThat(b.tryAcquireRetry()).as("the last instant of the window still counts them").isFalse();

        time.advance(Duration.ofNanos(1));
        assertThat(b.availableRetries()).as("one window later the retries are gone").isEqualTo(10);
    }

    @Test
    void trafficLeavesSlotBySlot() {
        RetryBudget b = budget().ratio(1).minRetriesPerSecond(0).window(Duration.ofSeconds(10)).build();
        for (int second = 0; second < 10; second++) {
            b.recordRequest();
            time.advance(Duration.ofSeconds(1));
        }
        // Now in slot 10: slot 0's request has left, slots 1-9 remain.
        assertThat(b.availableRetries()).isEqualTo(9);
        assertThat(b.tryAcquireRetry()).isTrue();
        time.advance(Duration.ofSeconds(1));
        // Slot 11: slot 1's request left; the retry (slot 10) stays.
        assertThat(b.availableRetries()).isEqualTo(7);
    }

    @Test
    void unlimitedNeverRefuses() {
        RetryBudget b = RetryBudget.unlimited();
        for (int i = 0; i < 10_000; i++) {
            assertThat(b.tryAcquireRetry()).isTrue();
        }
    }

    @Test
    void massFailureAcrossConcurrentCallersStaysWithinTheBudget() throws Exception {
        double ratio = 0.1;
        int floorPerSecond = 5;
        Duration window = Duration.ofSeconds(10);
        RetryBudget shared =
                budget().ratio(ratio).minRetriesPerSecond(floorPerSecond).window(window).build();
        // The ticker never moves, so every call falls into one window and the bound is exact.
        RetryPolicy policy =
                RetryPolicy.builder()
                        .maxAttempts(5)
                        .ticker(time)
                        .sleeper(d -> {})
                        .random(FixedRandom.lowest())
                        .build();
        Retrier retrier = Retrier.builder().policy(policy).budget(shared).build();

        int threads = 8;
        int callsPerThread = 250;
        AtomicInteger attempts = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(
                        pool.submit(
                                () -> {
                                    start.await(10, TimeUnit.SECONDS);
                                    int failed = 0;
                                    for (int i = 0; i < callsPerThread; i++) {
                                        try {
                                            retrier.call(
                                                    () -> {
                                                        attempts.incrementAndGet();
                                                        throw new ConnectException("down");
                                                    });
                                        } catch (ConnectException expected) {
                                            failed++;
                                        }
                                    }
                                    return failed;
                                }));
            }
            int failedCalls = 0;
            for (Future<Integer> f : results) {
                failedCalls += f.get(20, TimeUnit.SECONDS);
            }
            int calls = threads * callsPerThread;
            assertThat(failedCalls).isEqualTo(calls);
            int retries = attempts.get() - calls;
            // Under a fixed clock every call lands in one slot and a retry is granted by a CAS on its
            // count, so the budget is spent to the last retry and never beyond: exactly
            // 0.1 x 2000 + 5 x 10 = 250, where 4 retries per call would be 8000.
            assertThat(retries).isEqualTo((int) (ratio * calls) + floorPerSecond * (int) window.toSeconds());
            assertThat(shared.availableRetries()).isZero();
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }
}
