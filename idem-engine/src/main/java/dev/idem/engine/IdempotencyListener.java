package dev.idem.engine;

/**
 * Receives engine events, for metrics and logs. Called synchronously on the executing
 * thread, so it must be fast; an exception it throws is logged and otherwise ignored.
 * Events carry the key's scope and operation and durations, never the request payload.
 */
@FunctionalInterface
public interface IdempotencyListener {
    /** A listener that does nothing. */
    IdempotencyListener NONE = e -> { };

    /**
     * Called once per event.
     *
     * @param event what happened, never the payload
     */
    void onEvent(IdempotencyEvent event);
}
