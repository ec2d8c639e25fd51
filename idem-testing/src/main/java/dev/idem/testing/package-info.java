/**
 * A crash tester for an application's own idempotent work: {@link dev.idem.testing.CrashTester}
 * runs the work against the memory store (or a store the test passes), kills it at every step
 * boundary and every store call in turn, and hands back a {@link dev.idem.testing.CrashReport}
 * of each effect's count per key and every answer the callers got, for the test to assert on.
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
@NullMarked
package dev.idem.testing;

import org.jspecify.annotations.NullMarked;
