package dev.idem.outbox.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one relay batch did. The counts are of rows whose new state the batch's transaction
 * wrote; they took effect only if the {@link #outcome()} is {@link Outcome#COMMITTED}.
 *
 * <p>When the commit itself fails (the connection broke, the database answered with an error)
 * the relay cannot tell from the answer whether the commit landed. It then re-reads the rows it
 * wrote: if they hold what the batch wrote, the batch is {@link Outcome#COMMITTED} (with the
 * commit's failure in {@link #failure()}); if they hold what they held before, it is
 * {@link Outcome#ROLLED_BACK}; if they cannot be read (the database is still down, or the rows
 * are still locked by the lost transaction) it stays {@link Outcome#UNKNOWN}.
 *
 * @param outcome whether the batch's writes took effect
 * @param claimed rows the batch claimed (0 if it failed before claiming)
 * @param sent rows published and marked sent
 * @param retried rows whose publish failed and were rescheduled
 * @param dead rows marked dead (their attempts ran out)
 * @param retryDelays the backoff scheduled for each retried row, in batch order
 * @param duration from the batch's start to its commit or failure, settling included (injected ticker)
 * @param failure why the batch failed or its commit's answer was lost; null if the commit answered
 */
public record RelayBatch(Outcome outcome, int claimed, int sent, int retried, int dead, List<Duration> retryDelays,
        Duration duration, Throwable failure) {

    /** Whether a batch's writes took effect. */
    public enum Outcome {
        /** The transaction committed: its rows are sent, rescheduled or dead as counted. */
        COMMITTED,
        /** The transaction rolled back: its rows hold what they held before and will be claimed again. */
        ROLLED_BACK,
        /**
         * The commit failed and the rows could not be re-read to settle it: the counts may or may
         * not have taken effect (the table, and {@link Outbox#backlog()}, say which).
         */
        UNKNOWN
    }

    /**
     * Copies the delay list.
     *
     * @param outcome whether the writes took effect
     * @param claimed rows claimed
     * @param sent rows marked sent
     * @param retried rows rescheduled
     * @param dead rows marked dead
     * @param retryDelays the scheduled backoffs
     * @param duration the batch's duration
     * @param failure the failure, null if the commit answered
     */
    public RelayBatch {
        Objects.requireNonNull(outcome, "outcome");
        retryDelays = List.copyOf(retryDelays);
    }

    /**
     * Whether the batch's writes took effect (answered by the commit, or settled by re-reading the rows).
     *
     * @return true if the outcome is {@link Outcome#COMMITTED}
     */
    public boolean committed() {
        return outcome == Outcome.COMMITTED;
    }
}
