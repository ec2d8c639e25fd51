package dev.idem.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Keeps {@link AsyncTailBenchmark} running: one small batch through the delaying proxy, every key
 * stored, and no call faster than its two store calls' added delay (so the proxy is in the path).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AsyncTailBenchmarkTest {
    @Test
    void aSmallBatchThroughTheDelayingProxyStoresEveryKey() throws Exception {
        AsyncTailBenchmark b = new AsyncTailBenchmark();
        b.poolThreads = 8;
        b.calls = 200;
        b.setUp();
        try {
            assertThat(b.inFlight()).isEqualTo(200);
            assertThat(b.summary()).contains("calls=200 measured=200").contains("p999=");
            // A claim and a completion, each held by the proxy: at least twice its delay.
            assertThat(Duration.ofNanos(b.p50Nanos())).isGreaterThanOrEqualTo(
                    AsyncTailBenchmark.STORE_DELAY.multipliedBy(2));
        } finally {
            b.tearDown();
        }
    }
}
