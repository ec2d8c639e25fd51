/**
 * The JDBC store: idempotency records in a PostgreSQL, MySQL/MariaDB or H2 table through
 * Jdbi, with lease and expiry judged by the database clock, and a transactional mode in
 * which the business writes and the fenced completion commit together.
 * Start with {@link dev.idem.store.jdbc.JdbcIdempotencyStore#builder(javax.sql.DataSource)}.
 */
package dev.idem.store.jdbc;
