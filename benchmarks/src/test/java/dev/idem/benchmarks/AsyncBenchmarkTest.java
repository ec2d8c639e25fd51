package dev.idem.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Keeps {@link AsyncBenchmark} running: one invocation per mode on memory and Redis, every key stored once. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AsyncBenchmarkTest {
    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"MEMORY", "REDIS"})
    void everyCallerStoresEveryKeyInFlight(Backend backend) throws Exception {
        for (AsyncBenchmark.Caller caller : AsyncBenchmark.Caller.values()) {
            if (caller == AsyncBenchmark.Caller.SYNC_VIRTUAL && AsyncBenchmark.virtualThreads() == null) {
                continue;
            }
            AsyncBenchmark b = new AsyncBenchmark();
            b.backend = backend;
            b.caller = caller;
            b.setUp();
            try {
                assertThat(b.inFlight()).as("%s on %s", caller, backend).isEqualTo(AsyncBenchmark.IN_FLIGHT);
            } finally {
                b.tearDown();
            }
        }
    }
}
