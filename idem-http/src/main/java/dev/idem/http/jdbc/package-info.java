/**
 * The JDBC transactional mode for every adapter on idem-http's request flow (the JDK server, the
 * servlet filter, Jakarta REST): {@link dev.idem.http.jdbc.JdbcHandlerExecution} runs a covered
 * handler in a transaction of the JDBC store's database that also stores its response, so the
 * handler's writes and the stored response commit together or not at all; the handler reaches
 * that transaction through {@link dev.idem.http.jdbc.TransactionalContext#handle()}. Needs
 * {@code idem-store-jdbc} on the class path (an optional dependency of idem-http).
 *
 * <p>Nullness: every parameter and return value in this package is non-null unless its
 * Javadoc says otherwise.
 */
package dev.idem.http.jdbc;
