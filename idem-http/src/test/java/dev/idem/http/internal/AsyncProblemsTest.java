package dev.idem.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.AsyncCallsFullException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.HttpIdempotency;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The answers only reactive servers meet: a burst beyond the engine's {@code maxAsyncCalls}. */
class AsyncProblemsTest {
    @Test
    void aFullEngineIs503WithRetryAfterNotA500() {
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build()) {
            Processor processor = new Processor(HttpIdempotency.builder(engine)
                    .storeRetryAfter(Duration.ofSeconds(4)).build());

            StoredResponse problem = processor.problemFor(new AsyncCallsFullException(3));

            assertThat(problem).isNotNull();
            assertThat(problem.status()).isEqualTo(503);
            assertThat(problem.headers()).containsEntry("Retry-After", List.of("4"));
            assertThat(new String(problem.body(), StandardCharsets.UTF_8)).contains("too-busy");
        }
    }
}
