/**
 * The Idempotency-Key HTTP contract (the IETF "Idempotency-Key HTTP Header Field" draft) on
 * top of {@link dev.idem.engine.IdempotencyEngine}: configure {@link dev.idem.http.HttpIdempotency}
 * once, then install it as {@link dev.idem.http.IdempotentHttpHandler} on a JDK
 * {@code com.sun.net.httpserver} context or as {@link dev.idem.http.IdempotencyServletFilter}
 * in a Jakarta Servlet container. Adapters for other servers build on the same request flow,
 * {@link dev.idem.http.IdempotencyFlow}.
 *
 * <p>Nullness: every parameter and return value in this package is non-null unless its
 * Javadoc says otherwise.
 */
package dev.idem.http;
