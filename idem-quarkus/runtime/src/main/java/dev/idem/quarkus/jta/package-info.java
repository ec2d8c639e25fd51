/**
 * The JTA transactional mode on Quarkus REST ({@link dev.idem.quarkus.jta.JtaHandlerExecution}): a
 * covered resource method runs in a Narayana transaction that also stores its response, so its
 * writes through the JDBC store's Agroal datasource ({@code @Transactional} beans, the injected
 * {@code AgroalDataSource}, Hibernate, or the handle of its
 * {@link dev.idem.http.jdbc.TransactionalContext}) commit together with the stored response or not
 * at all. {@code idem.http.transactional=true} wires it; an application's own
 * {@code HttpIdempotency} may use it too. Needs idem-store-jdbc and quarkus-agroal (which brings
 * Narayana).
 *
 * <p>Nullness: every parameter and return value in this package is non-null unless its
 * Javadoc says otherwise.
 */
package dev.idem.quarkus.jta;
