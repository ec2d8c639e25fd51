package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.RecordState;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An outcome over {@code maxOutcomeBytes} is replaced by the "not stored" marker so the work never
 * runs again; when the marker's reason does not fit either, the marker is stored without it
 * (down to the smallest marker, which fits a limit of exactly its size), and only when not even
 * that fits is nothing written. Each case is seen as a retry sees it: the same error and no second
 * run, or the key held until its lease lapses.
 */
class MarkerAtTheLimitTest {
    private static final byte[] EMPTY_MARKER = "U{\"reason\":\"\"}".getBytes(StandardCharsets.UTF_8);
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
    private final AtomicInteger runs = new AtomicInteger();

    private Work<String> large() {
        return ctx -> {
            runs.incrementAndGet();
            return "x".repeat(300);
        };
    }

    @Test
    void aMarkerWithoutItsReasonIsStoredWhenOnlyThatFitsAndRetriesGetTheSameError() {
        IdempotencyKey key = IdempotencyKey.of("s", "op", "fits");
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store)
                .maxOutcomeBytes(EMPTY_MARKER.length).build()) {
            assertThatThrownBy(() -> engine.execute(key, "{}", String.class, large()))
                    .isInstanceOf(OutcomeNotStoredException.class);
            assertThat(store.find(key).orElseThrow().outcome()).isEqualTo(EMPTY_MARKER);
            assertThatThrownBy(() -> engine.execute(key, "{}", String.class, large()))
                    .isInstanceOf(OutcomeNotStoredException.class);
        }
        assertThat(runs).hasValue(1);
    }

    @Test
    void whenNotEvenTheSmallestMarkerFitsNothingIsWrittenAndTheKeyStaysHeld() {
        IdempotencyKey key = IdempotencyKey.of("s", "op", "nowhere");
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store)
                .maxOutcomeBytes(EMPTY_MARKER.length - 1).build()) {
            assertThatThrownBy(() -> engine.execute(key, "{}", String.class, large()))
                    .isInstanceOf(OutcomeNotStoredException.class);
            assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
            assertThatThrownBy(() -> engine.execute(key, "{}", String.class, large()))
                    .isInstanceOf(RequestInProgressException.class);
        }
        assertThat(runs).hasValue(1);
    }
}
