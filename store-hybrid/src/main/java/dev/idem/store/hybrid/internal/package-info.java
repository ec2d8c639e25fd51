/** Implementation details of the hybrid store: the gate's scripts, its clock and the breaker. Not API. */
@NullMarked
package dev.idem.store.hybrid.internal;

import org.jspecify.annotations.NullMarked;
