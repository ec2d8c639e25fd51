/**
 * The public vocabulary of idem: {@link dev.idem.api.IdempotencyKey} and the
 * {@link dev.idem.api.IdempotencyException} hierarchy.
 *
 * <p>Nullness: every parameter and return value in this package is non-null unless its
 * Javadoc says otherwise.
 */
@NullMarked
package dev.idem.api;

import org.jspecify.annotations.NullMarked;
