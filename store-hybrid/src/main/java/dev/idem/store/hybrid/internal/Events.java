package dev.idem.store.hybrid.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.hybrid.HybridStoreEvent;
import dev.idem.store.hybrid.HybridStoreEvent.Type;
import dev.idem.store.hybrid.HybridStoreListener;
import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/** Delivers events to the user's listener; a listener that throws is logged, never propagated. */
public final class Events {
    private static final System.Logger LOG = System.getLogger(Events.class.getName());

    private final HybridStoreListener listener;

    /**
     * Wraps a listener.
     *
     * @param listener the user's listener
     */
    public Events(HybridStoreListener listener) {
        this.listener = listener;
    }

    void emit(Type type, @Nullable IdempotencyKey key, @Nullable Throwable cause) {
        if (listener == HybridStoreListener.NONE) {
            return;
        }
        try {
            listener.onEvent(new HybridStoreEvent(type, key, cause));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "hybrid store listener threw on " + type, e);
        }
    }
}
