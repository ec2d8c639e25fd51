/**
 * The consumer half of event delivery: an {@link dev.idem.messaging.Inbox} handles each
 * delivered message once per event id on any idem store, and tells the broker adapter
 * whether to acknowledge it (return) or have it redelivered (exception).
 *
 * <p>Nullness: every parameter and return value in this package is non-null unless its
 * Javadoc says otherwise.
 */
package dev.idem.messaging;
