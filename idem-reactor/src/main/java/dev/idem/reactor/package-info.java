/**
 * idem for Project Reactor: {@link dev.idem.reactor.ReactorIdempotency} runs a {@code Mono}'s (or
 * a finite {@code Flux}'s) work once per idempotency key through the engine's asynchronous call.
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
@NullMarked
package dev.idem.reactor;

import org.jspecify.annotations.NullMarked;
