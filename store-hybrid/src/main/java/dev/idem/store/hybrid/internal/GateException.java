package dev.idem.store.hybrid.internal;

import org.jspecify.annotations.Nullable;

/** A gate call failed or answered something unreadable; the store carries on without the gate. */
public final class GateException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    GateException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
