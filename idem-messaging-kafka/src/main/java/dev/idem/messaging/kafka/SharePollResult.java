package dev.idem.messaging.kafka;

/**
 * What one {@link KafkaShareInboxHandler#handle} call did with a share consumer's poll. The
 * first four count acknowledgements whose commit the client reported successful, by type (an
 * acknowledgement sent after the record's lock lapsed may be reported so although the broker
 * gave the record to another member meanwhile; the inbox makes that repeat harmless).
 *
 * @param accepted records acknowledged {@code ACCEPT}: the inbox completed them (handled now or
 *     before, failed finally, dead-lettered by the inbox, mismatched), or they came past the
 *     delivery limit for an event that had already ended
 * @param released records acknowledged {@code RELEASE}: the handler failed transiently; the
 *     broker delivers them again, to any member, with their delivery count one higher
 * @param renewed records acknowledged {@code RENEW}: nothing could be done now (the event is in
 *     progress under another consumer's lease, the store is unavailable, parking failed), so
 *     this consumer keeps them, with the same delivery count, and its next poll returns them
 * @param rejected records parked on the dead-letter topic (or by the poison handler) and
 *     acknowledged {@code REJECT}: poison, or delivered more often than the limit
 * @param unconfirmed acknowledgements whose commit failed or whose answer was lost: their
 *     records come back when their acquisition lock lapses, and the inbox acknowledges repeats
 * @param failure the first failure (the inbox, the store, the parking, or an acknowledgement's
 *     commit), later ones suppressed in it; null if none. After a failure, pause before polling
 *     again: renewed records come straight back
 */
public record SharePollResult(int accepted, int released, int renewed, int rejected, int unconfirmed,
        RuntimeException failure) {

    /** Nothing polled. */
    static final SharePollResult EMPTY = new SharePollResult(0, 0, 0, 0, 0, null);

    /**
     * Whether something failed, so the caller should back off before the next poll.
     *
     * @return true if {@link #failure()} is set
     */
    public boolean failed() {
        return failure != null;
    }
}
