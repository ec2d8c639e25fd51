package dev.idem.store.hybrid;

/**
 * Receives the hybrid store's {@link HybridStoreEvent}s, for example to count them as metrics:
 *
 * <pre>{@code
 * HybridStoreListener metrics = e -> registry.counter("idem.hybrid.events", "type", e.type().name()).increment();
 * }</pre>
 *
 * Called synchronously on the thread that called the store; an exception thrown here is
 * logged and otherwise ignored. Must be thread-safe.
 */
@FunctionalInterface
public interface HybridStoreListener {
    /** A listener that ignores everything. */
    HybridStoreListener NONE = event -> { };

    /**
     * Called for each event.
     *
     * @param event what happened
     */
    void onEvent(HybridStoreEvent event);
}
