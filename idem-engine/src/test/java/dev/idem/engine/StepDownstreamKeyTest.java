package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A step's downstream key is what a downstream service deduplicates by, so it must not change
 * across releases (an interrupted step re-run after an upgrade would get a new key and be
 * applied twice): pinned here to golden values of the documented layout,
 * SHA-256("idem-downstream-step/v1\0" scope \0 operation \0 key \0 step), base64url.
 */
class StepDownstreamKeyTest {
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
            .build();

    private String stepKey(IdempotencyKey key, String step) {
        List<String> seen = new ArrayList<>();
        engine.execute(key, "{}", String.class, ctx -> {
            seen.add(ctx.downstreamKey(step));
            return "v";
        });
        return seen.get(0);
    }

    @Test
    void stepKeysArePinnedToTheirGoldenValues() {
        IdempotencyKey key = IdempotencyKey.of("tenant-1", "create-charge", "order-42");
        assertThat(StepContext.stepDownstreamKey(key, "charge")).isEqualTo("OnPMt6R_A7JsPTaBDSpABCLNGGyptnL7ectbwISbTUs");
        assertThat(StepContext.stepDownstreamKey(key, "ship")).isEqualTo("-YSIBbdFfgu3TM6NmO1wWYQeEtIB5oeMSHRzBJEi9gc");
        assertThat(stepKey(key, "charge")).isEqualTo("OnPMt6R_A7JsPTaBDSpABCLNGGyptnL7ectbwISbTUs");
    }

    @Test
    void partsCannotBleedIntoEachOther() {
        assertThat(StepContext.stepDownstreamKey(IdempotencyKey.of("ab", "c", "d"), "e"))
                .isNotEqualTo(StepContext.stepDownstreamKey(IdempotencyKey.of("a", "bc", "d"), "e"));
        assertThat(StepContext.stepDownstreamKey(IdempotencyKey.of("a", "bc", "d"), "e"))
                .isNotEqualTo(StepContext.stepDownstreamKey(IdempotencyKey.of("a", "b", "cd"), "e"));
        assertThat(StepContext.stepDownstreamKey(IdempotencyKey.of("a", "b", "cd"), "e"))
                .isNotEqualTo(StepContext.stepDownstreamKey(IdempotencyKey.of("a", "b", "c"), "de"));
    }
}
