/**
 * A transactional outbox over Jdbi for PostgreSQL, MySQL 8 / MariaDB 10.6+ and H2:
 * {@link dev.idem.outbox.jdbc.Outbox} writes messages in the caller's transaction, and a
 * {@link dev.idem.outbox.jdbc.Relay} publishes them through a user-supplied
 * {@link dev.idem.outbox.jdbc.Publisher}, each with a stable event id for the consumer's inbox.
 *
 * <p>Nullness: every parameter and return value in this package is non-null unless its
 * Javadoc says otherwise.
 */
package dev.idem.outbox.jdbc;
