package dev.idem.messaging;

/**
 * Receives inbox events, for metrics (a counter per type is the usual use) and logs. Called
 * synchronously on the handling thread, so it must be fast; an exception it throws is logged
 * and otherwise ignored.
 */
@FunctionalInterface
public interface InboxListener {
    /** A listener that does nothing. */
    InboxListener NONE = e -> { };

    /**
     * Called once per event.
     *
     * @param event what happened
     */
    void onEvent(InboxEvent event);
}
