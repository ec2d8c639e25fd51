package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * How long a record or a lease has left, as the engine counts it on every claim (the near cache's
 * entry life, a waiter's lease left): exact to the nanosecond across second boundaries, and never
 * negative once the moment has passed.
 */
class RecordTimeLeftTest {
    @Test
    void timeLeftIsExactAcrossSecondsAndNeverNegative() {
        Instant now = Instant.ofEpochSecond(1_000, 700_000_000);
        assertThat(Execution.timeLeft(now, Instant.ofEpochSecond(1_003, 200_000_000))).isEqualTo(2_500_000_000L);
        assertThat(Execution.timeLeft(now, Instant.ofEpochSecond(1_000, 900_000_001))).isEqualTo(200_000_001L);
        assertThat(Execution.timeLeft(now, now)).isZero();
        assertThat(Execution.timeLeft(now, Instant.ofEpochSecond(1_000, 100_000_000))).isZero();
        assertThat(Execution.timeLeft(now, Instant.ofEpochSecond(999, 900_000_000))).isZero();
    }
}
