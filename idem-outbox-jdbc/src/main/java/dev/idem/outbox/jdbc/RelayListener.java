package dev.idem.outbox.jdbc;

/**
 * Receives what each relay batch did, for metrics and logs (idem-micrometer's
 * {@code RelayMetrics} binds one to a {@code MeterRegistry}). Called on the relay's thread once
 * per batch, after the batch's transaction committed or failed, so it must be fast; an
 * exception it throws is logged and otherwise ignored.
 */
@FunctionalInterface
public interface RelayListener {
    /** A listener that does nothing. */
    RelayListener NONE = batch -> { };

    /**
     * Called once per {@link Relay#runOnce()} that claimed rows or failed.
     *
     * @param batch what the batch did
     */
    void onBatch(RelayBatch batch);
}
