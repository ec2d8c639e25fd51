package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The budget's settings at their exact limits, and what it reports about itself. */
class RetryBudgetLimitsTest {

    @Test
    void ratioZeroAndOneAndTheLongestWindowAreAccepted() {
        RetryBudget zero = RetryBudget.builder().ratio(0).minRetriesPerSecond(1).build();
        assertThat(zero.ratio()).isZero();
        RetryBudget one = RetryBudget.builder().ratio(1).minRetriesPerSecond(0)
                .window(RetryPolicy.MAX_DURATION).build();
        assertThat(one.ratio()).isEqualTo(1.0);
        assertThat(one.minRetriesPerSecond()).isZero();
        assertThat(one.window()).isEqualTo(RetryPolicy.MAX_DURATION);
        assertThatThrownBy(() -> RetryBudget.builder().window(RetryPolicy.MAX_DURATION.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most");
        assertThat(RetryBudget.builder().window(Duration.ofSeconds(1)).build().window()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void theBudgetDescribesItself() {
        RetryBudget b = RetryBudget.builder().ratio(0.25).minRetriesPerSecond(3).window(Duration.ofSeconds(20)).build();
        assertThat(b.ratio()).isEqualTo(0.25);
        assertThat(b.minRetriesPerSecond()).isEqualTo(3);
        assertThat(b.window()).isEqualTo(Duration.ofSeconds(20));
        assertThat(b.toString()).isEqualTo("RetryBudget{ratio=0.25, minRetriesPerSecond=3, window=PT20S}");
        assertThat(b.availableRetries()).isEqualTo(60);
        RetryBudget unlimited = RetryBudget.unlimited();
        assertThat(unlimited.toString()).isEqualTo("RetryBudget.unlimited()");
        assertThat(unlimited.availableRetries()).isEqualTo(Long.MAX_VALUE);
        assertThat(unlimited.window()).isEqualTo(Duration.ZERO);
        unlimited.recordRequest();
    }
}
