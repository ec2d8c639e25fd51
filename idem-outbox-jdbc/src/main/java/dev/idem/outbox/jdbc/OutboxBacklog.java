package dev.idem.outbox.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What an outbox table holds that is not sent yet, read in one query by {@link Outbox#backlog()}:
 * the rows waiting to be published (due now or backing off) and the rows given up on.
 *
 * @param pending rows in state pending (due or backing off)
 * @param oldestPending when the oldest pending row was enqueued (application clock); empty if
 *     none is pending
 * @param dead rows whose attempts ran out (states {@code F} and {@code D}), kept for inspection
 */
public record OutboxBacklog(long pending, Optional<Instant> oldestPending, long dead) {

    /**
     * Checks the counts.
     *
     * @param pending rows pending, at least 0
     * @param oldestPending the oldest pending row's enqueue time, present if {@code pending > 0}
     * @param dead rows dead, at least 0
     */
    public OutboxBacklog {
        if (pending < 0 || dead < 0) {
            throw new IllegalArgumentException("counts must not be negative: " + pending + ", " + dead);
        }
        if (oldestPending.isPresent() != pending > 0) {
            throw new IllegalArgumentException("oldestPending must be present exactly when rows are pending");
        }
    }

    /**
     * How long the oldest pending row has waited at {@code now}: what an operator watches to see
     * a stuck relay (zero when nothing is pending).
     *
     * @param now the current time on the application clock
     * @return the age, never negative
     */
    public Duration oldestPendingAge(Instant now) {
        return oldestPending.map(t -> now.isAfter(t) ? Duration.between(t, now) : Duration.ZERO)
                .orElse(Duration.ZERO);
    }
}
