/**
 * Micrometer metrics for the idem engine: {@link dev.idem.micrometer.IdempotencyMetrics} is an
 * {@link dev.idem.engine.IdempotencyListener} that turns engine events into counters and
 * timers on a {@link io.micrometer.core.instrument.MeterRegistry}, and
 * {@link dev.idem.micrometer.RelayMetrics} meters an outbox relay's batches and backlog.
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
package dev.idem.micrometer;
