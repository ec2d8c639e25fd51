package dev.idem.messaging.internal;

/**
 * What the inbox stores as the engine's outcome for one event: the handler's result, or the
 * final failure or dead letter that ended the event. A failure is stored as a success of the
 * engine on purpose, so the inbox behaves the same whatever failure classifier the user's
 * engine has.
 *
 * @param <R> the handler's result type
 * @param status {@code ok}, {@code failed} or {@code dead}
 * @param result the handler's result for {@code ok}, otherwise null
 * @param code the failure code, empty for {@code ok}
 * @param message the failure message, empty for {@code ok}
 */
public record Envelope<R>(String status, R result, String code, String message) {
    /** Status of a handled event. */
    public static final String OK = "ok";
    /** Status of an event whose handler failed finally. */
    public static final String FAILED = "failed";
    /** Status of an event that ran out of attempts. */
    public static final String DEAD = "dead";

    /**
     * A handled event.
     *
     * @param <R> the result type
     * @param result the handler's result (may be null)
     * @return the envelope
     */
    public static <R> Envelope<R> ok(R result) {
        return new Envelope<>(OK, result, "", "");
    }

    /**
     * An event that ended in a failure.
     *
     * @param <R> the result type
     * @param status {@link #FAILED} or {@link #DEAD}
     * @param code the failure code
     * @param message the failure message
     * @return the envelope
     */
    public static <R> Envelope<R> failure(String status, String code, String message) {
        return new Envelope<>(status, null, code, message == null ? "" : message);
    }
}
