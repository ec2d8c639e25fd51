package dev.idem.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Keeps {@link NonBlockingStoreBenchmark} running: one small invocation per form on Redis and DynamoDB, every key stored. */
class NonBlockingStoreBenchmarkTest {
    @Test
    void everyFormStoresEveryKeyInFlight() throws Exception {
        for (Backend backend : List.of(Backend.REDIS, Backend.DYNAMODB)) {
            for (NonBlockingStoreBenchmark.Form form : NonBlockingStoreBenchmark.Form.values()) {
                run(backend, form);
            }
        }
    }

    private static void run(Backend backend, NonBlockingStoreBenchmark.Form form) throws Exception {
        NonBlockingStoreBenchmark b = new NonBlockingStoreBenchmark();
        b.backend = backend;
        b.form = form;
        b.poolThreads = 8;
        b.inFlight = 200;
        b.setUp();
        try {
            assertThat(b.inFlight()).as("%s %s", backend, form).isEqualTo(200);
            assertThat(b.summary()).contains("calls=200");
        } finally {
            b.tearDown();
        }
    }
}
