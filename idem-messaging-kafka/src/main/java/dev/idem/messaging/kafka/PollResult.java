package dev.idem.messaging.kafka;

/**
 * What one {@link KafkaInboxHandler#handle} call did with a poll's records.
 *
 * @param committed records whose offsets this call committed: handled by the inbox (including
 *     redeliveries it acknowledged and mismatches) or parked
 * @param parked of those, poison records handed to the {@link PoisonRecordHandler}
 * @param redelivered records left uncommitted: their partitions were sought back to the first
 *     of them (or were revoked), so a later poll, here or on the partition's next owner,
 *     delivers them again
 * @param failure the first failure (the inbox, the parking, or the offset commit), later ones
 *     suppressed in it; null if none. After a failure, pause before polling again: the same
 *     records come straight back
 */
public record PollResult(int committed, int parked, int redelivered, RuntimeException failure) {

    /** Nothing polled. */
    static final PollResult EMPTY = new PollResult(0, 0, 0, null);

    /**
     * Whether something failed, so the caller should back off before the next poll.
     *
     * @return true if {@link #failure()} is set
     */
    public boolean failed() {
        return failure != null;
    }
}
