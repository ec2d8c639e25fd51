package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    @Test
    void defaultsAreDocumented() {
        RetryPolicy p = RetryPolicy.defaults();
        assertThat(p.maxAttempts()).isEqualTo(3);
        assertThat(p.baseDelay()).isEqualTo(Duration.ofMillis(100));
        assertThat(p.maxDelay()).isEqualTo(Duration.ofSeconds(5));
        assertThat(p.deadline()).isEqualTo(Duration.ofSeconds(30));
        assertThat(p.jitter()).isEqualTo(Jitter.FULL);
        assertThat(p.honorRetryAfter()).isTrue();
    }

    @Test
    void settersRejectBadValuesAtOnceNamingThem() {
        RetryPolicy.Builder b = RetryPolicy.builder();
        assertThatThrownBy(() -> b.maxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxAttempts")
                .hasMessageContaining("0");
        assertThatThrownBy(() -> b.baseDelay(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("baseDelay")
                .hasMessageContaining("PT0S");
        assertThatThrownBy(() -> b.maxDelay(Duration.ofMillis(-5)))
                .hasMessageContaining("maxDelay")
                .hasMessageContaining("PT-0.005S");
        assertThatThrownBy(() -> b.deadline(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("deadline");
        assertThatThrownBy(() -> b.deadline(Duration.ofDays(365L * 1000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("deadline");
        assertThatThrownBy(() -> b.jitter(null)).hasMessageContaining("jitter");
        assertThatThrownBy(() -> b.random(null)).hasMessageContaining("random");
        assertThatThrownBy(() -> b.clock(null)).hasMessageContaining("clock");
        assertThatThrownBy(() -> b.ticker(null)).hasMessageContaining("ticker");
        assertThatThrownBy(() -> b.sleeper(null)).hasMessageContaining("sleeper");
    }

    @Test
    void buildRejectsBaseAboveCap() {
        RetryPolicy.Builder b =
                RetryPolicy.builder().baseDelay(Duration.ofSeconds(2)).maxDelay(Duration.ofSeconds(1));
        assertThatThrownBy(b::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("baseDelay (PT2S)")
                .hasMessageContaining("maxDelay (PT1S)");
    }

    @Test
    void buildRejectsDeadlineShorterThanBase() {
        RetryPolicy.Builder b =
                RetryPolicy.builder().baseDelay(Duration.ofSeconds(1)).deadline(Duration.ofMillis(500));
        assertThatThrownBy(b::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("deadline (PT0.5S)")
                .hasMessageContaining("baseDelay (PT1S)");
    }

    @Test
    void toBuilderCopiesEverySetting() {
        FakeTime time = new FakeTime();
        RetryPolicy p =
                time.policy()
                        .maxAttempts(7)
                        .baseDelay(Duration.ofMillis(3))
                        .maxDelay(Duration.ofMillis(30))
                        .deadline(Duration.ofSeconds(3))
                        .jitter(Jitter.EQUAL)
                        .honorRetryAfter(false)
                        .random(FixedRandom.lowest())
                        .build();
        RetryPolicy copy = p.toBuilder().build();
        assertThat(copy).usingRecursiveComparison().isEqualTo(p);
        assertThat(p.toBuilder().maxAttempts(1).build().maxAttempts()).isEqualTo(1);
        assertThat(p.maxAttempts()).isEqualTo(7);
    }

    @Test
    void backoffRejectsNegativeRetryIndex() {
        assertThatThrownBy(() -> RetryPolicy.defaults().backoff(-1, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }
}
