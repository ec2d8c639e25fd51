package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.store.RecordState;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** After the work ran, every caller gets one answer, and the work never runs again. */
class OneOutcomeOneAnswerTest {
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private final FaultyStore store = new FaultyStore(memory);
    private final List<IdempotencyEvent> events = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger runs = new AtomicInteger();

    private IdempotencyEngineBuilder builder() {
        return IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).listener(events::add);
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant-1", "create-charge", k);
    }

    /** A result type Jackson cannot write: its getter throws. */
    public static final class Unwritable {
        /** Always fails. */
        public String getValue() {
            throw new IllegalStateException("not serializable today");
        }
    }

    @Test
    void aResultTheCodecCannotWriteIsAFinalMarkerNotAFreedKey() {
        IdempotencyEngine engine = builder().build();
        Work<Unwritable> work = ctx -> {
            runs.incrementAndGet();
            return new Unwritable();
        };
        for (int i = 0; i < 3; i++) {
            boolean first = i == 0;
            assertThatThrownBy(() -> engine.execute(key("codec"), "{}", Unwritable.class, work))
                    .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> {
                        assertThat(e.reason()).contains("cannot be written as JSON");
                        assertThat(e.replayed()).isEqualTo(!first);
                        assertThat(e.httpStatus()).isEqualTo(500);
                    });
        }
        assertThat(runs).hasValue(1);
        assertThat(memory.find(key("codec")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(events).extracting(IdempotencyEvent::type)
                .containsExactly(Type.OUTCOME_NOT_STORED, Type.REPLAY, Type.REPLAY);
    }

    @Test
    void anOutcomeOverTheStoreLimitIsAFinalMarkerNotAFreedKey() {
        store.maxOutcomeBytes = 200;
        // The engine reads the store's capabilities once, at build time.
        IdempotencyEngine engine = builder().build();
        Work<String> work = ctx -> {
            runs.incrementAndGet();
            return "x".repeat(1000);
        };
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> engine.execute(key("huge"), "{}", String.class, work))
                    .isInstanceOfSatisfying(OutcomeNotStoredException.class,
                            e -> assertThat(e.reason()).contains("over the limit of 200"));
        }
        assertThat(runs).hasValue(1);
    }

    @Test
    void atomicWorkThatReturnsWithoutCompletingIsAProgrammingErrorAndNeverStored() {
        IdempotencyEngine engine = builder().build();
        AtomicWork<String> forgetful = (ctx, completion) -> {
            runs.incrementAndGet();
            completion.encode("done");
            return "done";
        };
        assertThatThrownBy(() -> engine.executeAtomically(key("atomic"), "{}", String.class, CallOptions.defaults(),
                forgetful))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class,
                        e -> assertThat(e.reason()).contains("programming error"))
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> engine.executeAtomically(key("atomic"), "{}", String.class, CallOptions.defaults(),
                forgetful)).isInstanceOf(OutcomeNotStoredException.class);
        assertThat(runs).hasValue(1);
    }

    @Test
    void atomicWorkThatCompletesIsStored() {
        IdempotencyEngine engine = builder().build();
        AtomicWork<String> proper = (ctx, completion) -> {
            runs.incrementAndGet();
            memory.complete(ctx.key(), ctx.fencingToken(), completion.encode("done"), completion.ttl());
            return "done";
        };
        Result<String> r = engine.executeAtomically(key("ok"), "{}", String.class, CallOptions.defaults(), proper);
        assertThat(r.stored()).isTrue();
        assertThat(engine.executeAtomically(key("ok"), "{}", String.class, CallOptions.defaults(), proper)
                .replayed()).isTrue();
        assertThat(runs).hasValue(1);
    }

    @Test
    void aFinalFailureGivesTheFirstCallerWhatEveryRetryGets() {
        IdempotencyEngine engine = builder().failureClassifier(e -> FailureDecision.finalFailure("declined",
                e.getMessage())).build();
        IllegalArgumentException original = new IllegalArgumentException("insufficient funds");
        List<FinalFailureException> answers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            try {
                engine.execute(key("final"), "{}", String.class, ctx -> {
                    runs.incrementAndGet();
                    throw original;
                });
            } catch (FinalFailureException e) {
                answers.add(e);
            }
        }
        assertThat(answers).hasSize(2);
        assertThat(answers.get(0).getCause()).isSameAs(original);
        assertThat(answers.get(1)).isInstanceOf(ReplayedFailureException.class);
        assertThat(answers).allSatisfy(e -> {
            assertThat(e.code()).isEqualTo("declined");
            assertThat(e.detail()).isEqualTo("insufficient funds");
            assertThat(e.httpStatus()).isEqualTo(422);
        });
        assertThat(runs).hasValue(1);
    }

    @Test
    void untypedExecuteAnswersPlainJsonValuesTheFirstTimeToo() {
        IdempotencyEngine engine = builder().build();
        Result<Object> first = engine.execute(key("plain"), "{}", ctx -> new Charge("c", BigDecimal.ONE, "EUR"));
        Result<Object> replay = engine.execute(key("plain"), "{}", ctx -> new Charge("d", BigDecimal.TEN, "EUR"));
        assertThat(first.value()).isInstanceOf(Map.class).isEqualTo(replay.value());
        assertThat(first.value().getClass()).isEqualTo(replay.value().getClass());
    }

    @Test
    void replaysIgnorePropertiesTheResultTypeNoLongerHas() {
        IdempotencyEngine engine = builder().build();
        // Stored by an older deploy whose result type had one more field.
        engine.execute(key("evolved"), "{}", Object.class,
                ctx -> Map.of("id", "c", "amount", 1, "currency", "EUR", "removedSince", true));
        Result<Charge> replay = engine.execute(key("evolved"), "{}", Charge.class, ctx -> null);
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value().getId()).isEqualTo("c");
    }

    @Test
    void aRequestTheServerCannotSerializeIsTheServersFault() {
        IdempotencyEngine engine = builder().objectMapper(new ObjectMapper()).build();
        assertThatThrownBy(() -> engine.execute(key("instant"), Map.of("at", Instant.EPOCH), String.class,
                ctx -> "x"))
                .isInstanceOfSatisfying(RequestSerializationException.class,
                        e -> assertThat(e.httpStatus()).isEqualTo(500))
                // The message names the fix, not only Jackson's missing module.
                .hasMessageContaining("java.time.Instant")
                .hasMessageContaining(".objectMapper(new ObjectMapper().registerModule(new JavaTimeModule()))")
                .hasMessageContaining("jackson-datatype-jsr310")
                .hasMessageContaining("Jackson3JsonCodec");
        assertThat(store.claims).hasValue(0);
    }

    @Test
    void durationsAreValidatedOnceWithClearMessages() {
        IdempotencyEngine engine = builder().build();
        assertThatThrownBy(() -> InProgressPolicy.waitUpTo(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWait must be at most");
        CallOptions longWait = CallOptions.builder().inProgress(InProgressPolicy.waitUpTo(Duration.ofDays(3000)))
                .build();
        assertThatThrownBy(() -> engine.execute(key("wait"), "{}", String.class, longWait, ctx -> "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not exceed ttl");
        assertThatThrownBy(() -> IdempotencyEngine.builder().ttl(Duration.ofDays(100_000)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl must be at most 3650 days");
        assertThatThrownBy(() -> CallOptions.builder().ttl(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(store.claims).hasValue(0);
    }
}
