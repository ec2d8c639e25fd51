package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Module READMEs' examples that need nothing but the engine and the memory store. */
class ModuleReadmeExamplesTest {
    @Test
    void memoryStore() {
        Clock clock = Clock.fixed(Instant.parse("2026-11-26T00:00:00Z"), ZoneOffset.UTC);
        // tag::memory[]
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(MemoryIdempotencyStore.create())                  // system UTC clock
                .build();

        MemoryIdempotencyStore testStore = MemoryIdempotencyStore.builder()
                .clock(clock)                                            // leases and expiry on your clock
                .maxOutcomeBytes(1024 * 1024)                            // default 16 MiB
                .build();
        // end::memory[]
        IdempotencyKey key = IdempotencyKey.inScope("c").operation("op").key("m-1");
        assertThat(engine.call(key, "{}", String.class, ctx -> "done")).isEqualTo("done");
        assertThat(testStore.capabilities().maxOutcomeBytes()).isEqualTo(1024 * 1024);
        IdempotencyEngine onTestStore = IdempotencyEngine.builder().store(testStore).clock(clock)
                .ttl(Duration.ofHours(1)).build();
        assertThat(onTestStore.call(key, "{}", String.class, ctx -> "once")).isEqualTo("once");
        assertThat(testStore.find(key).orElseThrow().createdAt()).isEqualTo(clock.instant());
    }
}
