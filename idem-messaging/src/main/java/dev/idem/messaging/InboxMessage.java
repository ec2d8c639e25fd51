package dev.idem.messaging;

import dev.idem.engine.ExecutionContext;
import java.util.Objects;

/**
 * One delivery of a message as the handler sees it: who produced it, its event id, its
 * payload, and the execution it runs in (attempt number, fencing token, lease).
 */
public final class InboxMessage {
    private final String source;
    private final String eventId;
    private final Object payload;
    private final ExecutionContext context;

    InboxMessage(String source, String eventId, Object payload, ExecutionContext context) {
        this.source = source;
        this.eventId = eventId;
        this.payload = payload;
        this.context = Objects.requireNonNull(context, "context");
    }

    /**
     * The producer the message came from (the idempotency scope).
     *
     * @return the source
     */
    public String source() {
        return source;
    }

    /**
     * The producer's stable event id (the idempotency key).
     *
     * @return the event id
     */
    public String eventId() {
        return eventId;
    }

    /**
     * The payload as it was given to {@link Inbox#handle}.
     *
     * @return the payload; null if null was given
     */
    public Object payload() {
        return payload;
    }

    /**
     * How many times handling this event has started, this time included: 1 the first time,
     * then one more after each transient failure and each consumer that crashed mid-handling.
     *
     * @return the attempt number, at least 1
     */
    public int attempt() {
        return context.attempt();
    }

    /**
     * The engine's execution context (fencing token, lease, downstream key).
     *
     * @return the context
     */
    public ExecutionContext context() {
        return context;
    }

    @Override
    public String toString() {
        return "InboxMessage[" + source + ", " + eventId + ", attempt " + attempt() + "]";
    }
}
