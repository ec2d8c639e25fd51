package dev.idem.jackson3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The README's example, run as printed: a Jackson 3 mapper writes java.time with no module. */
class ReadmeExampleTest {
    record Booking(String room, Instant from) {
    }

    @Test
    void theEngineWritesThroughTheApplicationsJsonMapper() {
        IdempotencyStore store = MemoryIdempotencyStore.create();
        JsonMapper jsonMapper = JsonMapper.builder().build();
        // tag::codec[]
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(store)
                .jsonCodec(Jackson3JsonCodec.of(jsonMapper))
                .build();
        // end::codec[]
        Booking booking = new Booking("101", Instant.parse("2026-11-26T10:00:00Z"));
        IdempotencyKey key = IdempotencyKey.inScope("c").operation("book").key("b-1");
        assertThat(engine.call(key, booking, Booking.class, ctx -> booking)).isEqualTo(booking);
        assertThat(engine.execute(key, booking, Booking.class, ctx -> null).replayed()).isTrue();
    }
}
