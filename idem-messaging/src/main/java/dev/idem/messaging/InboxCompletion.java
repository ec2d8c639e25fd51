package dev.idem.messaging;

import dev.idem.api.IdempotencyKey;
import java.time.Duration;

/**
 * What a {@link TransactionalMessageHandler} needs to complete the inbox record inside its own
 * transaction (for idem-store-jdbc: the arguments of {@code JdbcIdempotencyStore.inTransaction}
 * or {@code completeWithin}).
 *
 * @param <R> the handler's result type
 */
public interface InboxCompletion<R> {
    /**
     * The inbox record's key: scope = source, operation = consumer, key = event id.
     *
     * @return the key
     */
    IdempotencyKey key();

    /**
     * The fencing token the completion must be fenced by.
     *
     * @return the token of this execution's claim
     */
    long fencingToken();

    /**
     * How long the completed record must live.
     *
     * @return the TTL
     */
    Duration ttl();

    /**
     * The bytes to store as the record's outcome for {@code result}.
     *
     * @param result the handler's result (may be null)
     * @return the encoded outcome
     */
    byte[] encode(R result);
}
