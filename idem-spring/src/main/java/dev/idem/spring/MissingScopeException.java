package dev.idem.spring;

import dev.idem.api.IdempotencyException;

/**
 * An {@link Idempotent} call has no scope: it names none, no caller is authenticated (Spring
 * Security, the servlet container, or the configured principal header), and no
 * {@code idem.aop.default-scope} was set. Without a scope every caller would share one key
 * space, so one tenant could replay or block another's operation; the call is refused (HTTP 401)
 * and nothing runs or is stored.
 */
public class MissingScopeException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what is missing, and how to give a scope
     */
    public MissingScopeException(String message) {
        super(message);
    }

    @Override
    public int httpStatus() {
        return 401;
    }
}
