package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.protection.OutcomeFilter;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Public entry points that the main tests reach only through their siblings: the generic-type
 * forms of {@code executeAtomically} and {@code callAsync} behave as their class-typed twins
 * (work bound to another store is refused before anything is claimed; the value arrives
 * decoded as the generic type); the engine hands out the JSON codec it was given; a store whose
 * non-blocking form claims no room for a call is refused at build time, naming the setting;
 * call options keep the exclusions they were given and take one outcome filter.
 */
class EngineEntryPointsTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("s", "op", "k");

    @Test
    void genericAtomicWorkBoundToAnotherStoreIsRefusedBeforeAnythingIsClaimed() {
        MemoryIdempotencyStore mine = MemoryIdempotencyStore.create();
        MemoryIdempotencyStore other = MemoryIdempotencyStore.create();
        AtomicWork<List<String>> bound = new AtomicWork<>() {
            @Override
            public List<String> executeAndComplete(ExecutionContext context, Completion completion) {
                throw new AssertionError("never run");
            }

            @Override
            public IdempotencyStore store() {
                return other;
            }
        };
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(mine).build()) {
            assertThatThrownBy(() -> engine.executeAtomically(KEY, "{}", new TypeReference<List<String>>() { },
                    CallOptions.defaults(), bound)).isInstanceOf(ForeignStoreWorkException.class);
        }
        assertThat(mine.find(KEY)).isEmpty();
        assertThat(other.find(KEY)).isEmpty();
    }

    @Test
    void aGenericAsynchronousCallGivesTheValueFirstAndOnReplay() throws Exception {
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build()) {
            TypeReference<List<Map<String, Integer>>> type = new TypeReference<>() { };
            List<Map<String, Integer>> first = engine.callAsync(KEY, "{}", type,
                    ctx -> CompletableFuture.completedFuture(List.of(Map.of("n", 1)))).get(10, TimeUnit.SECONDS);
            List<Map<String, Integer>> replay = engine.callAsync(KEY, "{}", type,
                    ctx -> CompletableFuture.completedFuture(List.of(Map.of("n", 2)))).get(10, TimeUnit.SECONDS);
            assertThat(first).isEqualTo(List.of(Map.of("n", 1)));
            assertThat(replay).isEqualTo(first);
            assertThat(replay.get(0).get("n")).isInstanceOf(Integer.class);
        }
    }

    @Test
    void theEngineHandsOutTheCodecItWasGiven() {
        JsonCodec codec = JsonCodec.jackson2(new ObjectMapper());
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .jsonCodec(codec).build()) {
            assertThat(engine.jsonCodec()).isSameAs(codec);
        }
        assertThatThrownBy(() -> IdempotencyEngine.builder().jsonCodec(codec).jsonCodec(codec))
                .isInstanceOf(IllegalStateException.class).hasMessage("jsonCodec was already set");
    }

    @Test
    void aNonBlockingFormWithoutRoomForACallIsRefusedAtBuild() throws Exception {
        assertThatThrownBy(() -> IdempotencyEngine.builder()
                .store(new CompletedForm(MemoryIdempotencyStore.create(), 0)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxCallsInFlight() must be positive but was 0");
        try (IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(new CompletedForm(MemoryIdempotencyStore.create(), 1)).build()) {
            assertThat(engine.callAsync(KEY, "{}", String.class, ctx -> CompletableFuture.completedFuture("one"))
                    .get(10, TimeUnit.SECONDS)).isEqualTo("one");
        }
    }

    @Test
    void callOptionsKeepTheirExclusionsAndTakeOneFilter() {
        assertThat(CallOptions.builder().excludeFromFingerprint("/at", "/trace").build().excludedFromFingerprint())
                .containsExactly("/at", "/trace");
        OutcomeFilter filter = OutcomeFilter.removing("/card");
        assertThatThrownBy(() -> CallOptions.builder().outcomeFilter(filter).outcomeFilter(filter))
                .isInstanceOf(IllegalStateException.class).hasMessage("outcomeFilter was already set");
    }
}
