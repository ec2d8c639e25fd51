package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.time.Sleeper;
import dev.idem.api.time.Ticker;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The engine's settings at their exact limits and set twice, and the small value types'
 * equality and self-descriptions: what a user sees when configuring or logging them.
 */
class EngineSettingsAtTheirLimitsTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("t", "op", "k");

    private static IdempotencyEngineBuilder builder() {
        return IdempotencyEngine.builder().store(MemoryIdempotencyStore.create());
    }

    static Stream<Arguments> setters() {
        return Stream.of(
                setter("objectMapper", b -> b.objectMapper(new ObjectMapper())),
                setter("clock", b -> b.clock(Clock.systemUTC())),
                setter("ticker", b -> b.ticker(Ticker.system())),
                setter("random", b -> b.random(RandomGenerator.getDefault())),
                setter("sleeper", b -> b.sleeper(Sleeper.system())),
                setter("ttl", b -> b.ttl(Duration.ofHours(1))),
                setter("inProgress", b -> b.inProgress(InProgressPolicy.failFast())),
                setter("retryAfterHint", b -> b.retryAfterHint(Duration.ofSeconds(1))),
                setter("failureClassifier", b -> b.failureClassifier(e -> FailureDecision.transientFailure())),
                setter("listener", b -> b.listener(e -> { })),
                setter("nearCache", b -> b.nearCache(10)),
                setter("maxRequestBytes", b -> b.maxRequestBytes(1024)),
                setter("completeAttempts", b -> b.completeAttempts(2)),
                setter("maxOutcomeBytes", b -> b.maxOutcomeBytes(1)),
                setter("classLoader", b -> b.classLoader(EngineSettingsAtTheirLimitsTest.class.getClassLoader())));
    }

    private static Arguments setter(String name, Consumer<IdempotencyEngineBuilder> set) {
        return Arguments.of(name, set);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("setters")
    void aSettingGivenTwiceIsRefusedByName(String name, Consumer<IdempotencyEngineBuilder> set) {
        IdempotencyEngineBuilder b = builder();
        set.accept(b);
        assertThatThrownBy(() -> set.accept(b)).isInstanceOf(IllegalStateException.class)
                .hasMessage(name + " was already set");
    }

    @Test
    void aLeaseEqualToTheTtlIsRefusedAWaitEqualToItIsAccepted() {
        assertThatThrownBy(() -> builder().lease(Duration.ofMinutes(5)).ttl(Duration.ofMinutes(5)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be shorter than ttl");
        assertThatCode(() -> builder().lease(Duration.ofMinutes(1)).ttl(Duration.ofMinutes(5))
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofMinutes(5))).build()).doesNotThrowAnyException();
        assertThatThrownBy(() -> builder().lease(Duration.ofMinutes(1)).ttl(Duration.ofMinutes(5))
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofMinutes(5).plusMillis(1))).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not exceed ttl");
    }

    @Test
    void durationsAreAcceptedFromOneMillisecondUpToMaxDuration() {
        assertThatCode(() -> builder().lease(Duration.ofMillis(1)).ttl(IdempotencyEngine.MAX_DURATION).build())
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> builder().ttl(IdempotencyEngine.MAX_DURATION.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 3650 days");
        assertThatThrownBy(() -> builder().lease(Duration.ofNanos(999_999)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 ms");
        assertThatThrownBy(() -> builder().lease(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be positive");
    }

    @Test
    void countsAreAcceptedAtTheirBoundsAndRefusedJustPast() {
        assertThatCode(() -> builder().nearCache(1).maxRequestBytes(1).completeAttempts(1).build())
                .doesNotThrowAnyException();
        assertThatCode(() -> builder().completeAttempts(10).build()).doesNotThrowAnyException();
        assertThatThrownBy(() -> builder().nearCache(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder().maxRequestBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder().completeAttempts(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder().completeAttempts(11)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void resultsAreEqualExactlyWhenEveryPartIs() {
        Result<String> r = new Result<>("v", false, true, 1);
        assertThat(r).isEqualTo(new Result<>("v", false, true, 1)).hasSameHashCodeAs(new Result<>("v", false, true, 1));
        assertThat(r).isNotEqualTo(new Result<>("w", false, true, 1))
                .isNotEqualTo(new Result<>("v", true, true, 1))
                .isNotEqualTo(new Result<>("v", false, false, 1))
                .isNotEqualTo(new Result<>("v", false, true, 2))
                .isNotEqualTo("v");
        assertThat(r.hashCode()).isNotEqualTo(new Result<>("w", false, true, 1).hashCode());
        assertThat(r).hasToString("Result[executed, attempt 1, v]");
        assertThat(new Result<>("v", true, true, 3)).hasToString("Result[replayed, attempt 3, v]");
    }

    @Test
    void decisionsAndPoliciesDescribeThemselves() {
        FailureDecision transientOne = FailureDecision.transientFailure();
        assertThat(transientOne).isNotNull().hasToString("transient");
        assertThat(transientOne.isFinal()).isFalse();
        assertThat(FailureDecision.finalFailure("card_declined", "Declined")).hasToString("final(card_declined)");
        assertThat(InProgressPolicy.failFast()).hasToString("failFast");
        assertThat(InProgressPolicy.failFast().waits()).isFalse();
        assertThat(InProgressPolicy.waitUpTo(Duration.ofSeconds(2))).hasToString("waitUpTo(PT2S)");
    }

    @Test
    void stepExceptionsCarryTheirKeyStepAndSizes() {
        StepJournalTooLargeException tooLarge = new StepJournalTooLargeException(KEY, "charge", 2048, 1024);
        assertThat(tooLarge.step()).isEqualTo("charge");
        assertThat(tooLarge.bytes()).isEqualTo(2048);
        assertThat(tooLarge.limit()).isEqualTo(1024);
        StepMismatchException mismatch = new StepMismatchException(KEY, "ship", "reordered", null);
        assertThat(mismatch.key()).isEqualTo(KEY);
        assertThat(mismatch.step()).isEqualTo("ship");
        OutcomeNotStoredException notStored = new OutcomeNotStoredException(KEY, "too big", false, null);
        assertThat(notStored.key()).isEqualTo(KEY);
        assertThat(notStored.reason()).isEqualTo("too big");
    }
}
