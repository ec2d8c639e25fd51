package dev.idem.outbox.jdbc;

import java.time.Duration;
import java.util.List;

/**
 * What one relay batch did. The counts are of rows whose new state the batch's transaction
 * wrote: they took effect only if {@link #committed()}; a batch that failed (database error, the
 * commit failed, a publisher threw an {@link Error}) rolled back, and its rows are pending again.
 *
 * @param committed whether the batch's transaction committed
 * @param claimed rows the batch claimed (0 if it failed before claiming)
 * @param sent rows published and marked sent
 * @param retried rows whose publish failed and were rescheduled
 * @param dead rows marked dead (their attempts ran out)
 * @param retryDelays the backoff scheduled for each retried row, in batch order
 * @param duration from the batch's start to its commit or failure (injected ticker)
 * @param failure why the batch failed; null if it committed
 */
public record RelayBatch(boolean committed, int claimed, int sent, int retried, int dead, List<Duration> retryDelays,
        Duration duration, Throwable failure) {

    /**
     * Copies the delay list.
     *
     * @param committed whether the batch's transaction committed
     * @param claimed rows claimed
     * @param sent rows marked sent
     * @param retried rows rescheduled
     * @param dead rows marked dead
     * @param retryDelays the scheduled backoffs
     * @param duration the batch's duration
     * @param failure the failure, null if committed
     */
    public RelayBatch {
        retryDelays = List.copyOf(retryDelays);
    }
}
