package dev.idem.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Keeps {@link NonBlockingStoreBenchmark} running: one small invocation per form on DynamoDB, every key stored. */
class NonBlockingStoreBenchmarkTest {
    @Test
    void everyFormStoresEveryKeyInFlight() throws Exception {
        for (NonBlockingStoreBenchmark.Form form : NonBlockingStoreBenchmark.Form.values()) {
            NonBlockingStoreBenchmark b = new NonBlockingStoreBenchmark();
            b.backend = Backend.DYNAMODB;
            b.form = form;
            b.poolThreads = 8;
            b.inFlight = 200;
            b.setUp();
            try {
                assertThat(b.inFlight()).as("%s", form).isEqualTo(200);
                assertThat(b.summary()).contains("calls=200");
            } finally {
                b.tearDown();
            }
        }
    }
}
