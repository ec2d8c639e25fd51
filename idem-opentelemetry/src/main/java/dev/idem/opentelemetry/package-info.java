/**
 * OpenTelemetry tracing for the idem engine: {@link dev.idem.opentelemetry.IdempotencyTracing}
 * annotates the caller's current span with each call's outcome, and
 * {@link dev.idem.opentelemetry.TracingIdempotencyStore} wraps every store round trip in a
 * child span.
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
package dev.idem.opentelemetry;
