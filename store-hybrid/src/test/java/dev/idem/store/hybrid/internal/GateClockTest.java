package dev.idem.store.hybrid.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.testsupport.MutableClock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The gate clock's lower bound: a reading of Redis' clock already reached at a local mark. */
class GateClockTest {
    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final GateClock clock = new GateClock(null, nanos::get);

    @Test
    void beforeAnyReplyTheGatesClockIsUnknown() {
        assertThat(clock.lowerBound(clock.mark())).isEqualTo(GateClock.UNKNOWN);
        assertThat(clock.nowArgument()).as("the scripts read Redis TIME").isEmpty();
        assertThat(clock.sentArgument()).as("no bound to send: the claim script predicts nothing").isEmpty();
    }

    @Test
    void aClaimCarriesTheClockReadingReachedWhenItIsSent() {
        clock.observed(1_000_000);
        nanos.addAndGet(1_500_000_000);
        assertThat(clock.sentArgument()).isEqualTo("1001500");
    }

    @Test
    void aMarkTakenAfterAReplyIsBoundedByTheReplysReadingPlusTheLocalTimeSince() {
        // The script read TIME = 1,000,000 ms at some point before its reply arrived (now).
        clock.observed(1_000_000);
        nanos.addAndGet(250_000_000);
        long mark = clock.mark();
        assertThat(clock.lowerBound(mark)).isEqualTo(1_000_250);
        // A mark taken before the reply arrived is bounded too: the reading was taken no later
        // than the arrival, so the clock then stood at least that reading minus the time between.
        assertThat(clock.lowerBound(mark - 400_000_000)).isEqualTo(999_850);
    }

    @Test
    void aNewerReplyReplacesTheAnchor() {
        clock.observed(1_000_000);
        nanos.addAndGet(1_000_000_000);
        clock.observed(2_000_000);
        assertThat(clock.lowerBound(clock.mark())).isEqualTo(2_000_000);
    }

    @Test
    void aTestClockIsPassedToTheScriptsAndIsItsOwnBound() {
        MutableClock test = new MutableClock(Instant.ofEpochMilli(42_000));
        GateClock simulated = new GateClock(test, nanos::get);
        assertThat(simulated.nowArgument()).isEqualTo("42000");
        assertThat(simulated.sentArgument()).isEqualTo("42000");
        long mark = simulated.mark();
        simulated.observed(1);
        assertThat(simulated.lowerBound(mark)).isEqualTo(42_000);
        assertThat(simulated.simulated()).isTrue();
    }
}
