package dev.idem.jaxrs.internal;

/**
 * The entity of the response an exception mapper gives for an exception no other mapper took:
 * it carries the exception to the response filter, which Jakarta REST otherwise never shows it.
 * Never written: the response filter replaces it. Not API.
 *
 * @param cause what the handler threw
 */
public record HandlerFailure(Throwable cause) {
}
