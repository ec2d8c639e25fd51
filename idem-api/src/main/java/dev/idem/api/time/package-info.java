/**
 * The time abstractions every idem module injects, so tests control time instead of
 * waiting for it: {@link dev.idem.api.time.Ticker} for elapsed time and
 * {@link dev.idem.api.time.Sleeper} for pauses. Wall-clock time is a
 * {@link java.time.Clock} and randomness a {@link java.util.random.RandomGenerator}; idem
 * defines no types of its own for those.
 *
 * <p>Nullness: every parameter and return value in this package is non-null unless its
 * Javadoc says otherwise.
 */
@NullMarked
package dev.idem.api.time;

import org.jspecify.annotations.NullMarked;
