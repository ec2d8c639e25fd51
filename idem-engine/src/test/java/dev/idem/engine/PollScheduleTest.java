package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The one poll schedule, for the pauses of waiting callers and the freshness of shared polls: values in, values out. */
class PollScheduleTest {

    @Test
    void theIntervalDoublesFromTenMillisecondsUpToHalfASecond() {
        long[] millis = new long[9];
        for (int polls = 0; polls < millis.length; polls++) {
            millis[polls] = PollSchedule.intervalNanos(polls) / 1_000_000;
        }

        assertThat(millis).containsExactly(10, 20, 40, 80, 160, 320, 500, 500, 500);
        assertThat(PollSchedule.intervalNanos(Integer.MAX_VALUE)).as("never overflows")
                .isEqualTo(Duration.ofMillis(500).toNanos());
    }

    @Test
    void aPauseIsBetweenHalfTheIntervalAndTheWholeOfItByItsJitter() {
        long far = Duration.ofMinutes(1).toNanos();

        assertThat(PollSchedule.pauseMillis(0, 0.0, 60_000, far)).isEqualTo(5);
        assertThat(PollSchedule.pauseMillis(0, 0.999, 60_000, far)).isEqualTo(10);
        assertThat(PollSchedule.pauseMillis(3, 0.5, 60_000, far)).isEqualTo(40 + 20);
        assertThat(PollSchedule.pauseMillis(20, 0.999, 60_000, far)).isEqualTo(500);
    }

    @Test
    void aPauseEndsJustAfterTheLeaseLapsesAndBeforeTheWaitEnds() {
        long far = Duration.ofMinutes(1).toNanos();

        assertThat(PollSchedule.pauseMillis(6, 0.5, 30, far)).as("just after the lease lapses").isEqualTo(31);
        assertThat(PollSchedule.pauseMillis(6, 0.5, 60_000, 7_000_001)).as("the wait, rounded up").isEqualTo(8);
        assertThat(PollSchedule.pauseMillis(6, 0.5, 0, 0)).as("never zero: no busy loop").isEqualTo(1);
    }
}
