package dev.idem.engine;

import java.util.List;

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

    /**
     * Several listeners as one, called in order (the engine takes one listener). One that throws
     * does not keep the event from the others; the first exception is rethrown afterwards, with
     * the later ones suppressed, for the engine to log.
     *
     * @param listeners the listeners, in order
     * @return {@link #NONE} for none, the listener itself for one, else a composite
     */
    static IdempotencyListener all(List<? extends IdempotencyListener> listeners) {
        List<IdempotencyListener> copy = List.copyOf(listeners);
        if (copy.isEmpty()) {
            return NONE;
        }
        if (copy.size() == 1) {
            return copy.get(0);
        }
        return event -> {
            RuntimeException first = null;
            for (IdempotencyListener l : copy) {
                try {
                    l.onEvent(event);
                } catch (RuntimeException e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        };
    }
}
