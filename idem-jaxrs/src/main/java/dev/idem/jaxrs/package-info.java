/**
 * The Idempotency-Key HTTP contract on Jakarta REST (3.1): {@link dev.idem.jaxrs.IdempotencyFeature}
 * (a request and response {@link dev.idem.jaxrs.IdempotencyFilter} and an
 * {@link dev.idem.jaxrs.IdempotencyExceptionMapper}) for runtimes whose filters may block, over
 * {@link dev.idem.jaxrs.JaxrsIdempotency}, the same contract as stages for non-blocking
 * runtimes; routes named after resource methods or selected by the
 * {@link dev.idem.jaxrs.Idempotent} annotation ({@link dev.idem.jaxrs.JaxrsRoutes}). Built on
 * idem-http's shared flow, so the contract is the servlet filter's.
 *
 * <p>Nullness: every parameter and return value in this package is non-null unless its
 * Javadoc says otherwise.
 */
package dev.idem.jaxrs;
