package dev.idem.quarkus.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.Map;
import java.util.function.Supplier;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

/**
 * The readiness check says what kind of failure the store had, never the store's own words: a
 * driver's message may carry a host, a user, a key id or a record's data.
 */
class IdemHealthCheckTest {
    /** A store whose every call fails with {@code failure}. */
    private static final class Failing extends ForwardingIdempotencyStore {
        private final RuntimeException failure;

        Failing(RuntimeException failure) {
            super(MemoryIdempotencyStore.create());
            this.failure = failure;
        }

        @Override
        protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
            throw failure;
        }
    }

    private static HealthCheckResponse check(RuntimeException failure) {
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(new Failing(failure)).build()) {
            return new IdemHealthCheck(engine).call();
        }
    }

    @Test
    void aFailingStoreIsDownWithTheKindOfItsFailureNotItsText() {
        String secret = "FATAL: password authentication failed for user \"payments\" at db-7.internal:5432";
        HealthCheckResponse unavailable = check(new StoreUnavailableException(secret, null, true));
        HealthCheckResponse unexpected = check(new IllegalStateException(secret));

        assertThat(unavailable.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        Map<String, Object> data = unavailable.getData().orElseThrow();
        assertThat(data).containsEntry("error", "StoreUnavailableException").containsEntry("store", "memory");
        assertThat(unexpected.getData().orElseThrow()).containsEntry("error", "IllegalStateException");
        assertThat(String.valueOf(data) + unexpected.getData()).doesNotContain("password").doesNotContain("db-7")
                .doesNotContain("payments");
    }

    @Test
    void aWorkingStoreIsUp() {
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build()) {
            assertThat(new IdemHealthCheck(engine).call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        }
    }
}
