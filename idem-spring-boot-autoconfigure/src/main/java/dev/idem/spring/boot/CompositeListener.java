package dev.idem.spring.boot;

import dev.idem.engine.IdempotencyEvent;
import dev.idem.engine.IdempotencyListener;
import java.util.List;

/** Several listeners as one; the engine takes a single listener and isolates its failures. */
final class CompositeListener implements IdempotencyListener {
    private final IdempotencyListener[] listeners;

    private CompositeListener(List<IdempotencyListener> listeners) {
        this.listeners = listeners.toArray(new IdempotencyListener[0]);
    }

    static IdempotencyListener of(List<IdempotencyListener> listeners) {
        if (listeners.isEmpty()) {
            return IdempotencyListener.NONE;
        }
        return listeners.size() == 1 ? listeners.get(0) : new CompositeListener(listeners);
    }

    @Override
    public void onEvent(IdempotencyEvent event) {
        RuntimeException first = null;
        for (IdempotencyListener l : listeners) {
            try {
                l.onEvent(event);
            } catch (RuntimeException e) {
                // One broken listener must not starve the others; the engine logs what we rethrow.
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
    }
}
