package dev.idem.engine;

import java.util.Objects;

/**
 * The outcome of {@link FailureClassifier#classify}: transient (release the key), or final
 * with the code and message to store and replay.
 */
public final class FailureDecision {
    private static final FailureDecision TRANSIENT = new FailureDecision(false, "", "");

    private final boolean isFinal;
    private final String code;
    private final String message;

    private FailureDecision(boolean isFinal, String code, String message) {
        this.isFinal = isFinal;
        this.code = code;
        this.message = message;
    }

    /**
     * Release the key so a retry runs the work again.
     *
     * @return the decision to release the key so a retry runs the work again
     */
    public static FailureDecision transientFailure() {
        return TRANSIENT;
    }

    /**
     * Store this failure; retries replay it as {@link dev.idem.api.ReplayedFailureException}.
     *
     * @param code a short machine-readable code, for example {@code card_declined}
     * @param message a human-readable message (stored; keep secrets out of it)
     * @return the decision to store this failure
     */
    public static FailureDecision finalFailure(String code, String message) {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        if (code.isEmpty()) {
            throw new IllegalArgumentException("code must not be empty");
        }
        return new FailureDecision(true, code, message);
    }

    /**
     * Whether the failure is stored and replayed.
     *
     * @return whether the failure is stored and replayed
     */
    public boolean isFinal() {
        return isFinal;
    }

    /**
     * The stored code; empty for transient failures.
     *
     * @return the stored code
     */
    public String code() {
        return code;
    }

    /**
     * The stored message; empty for transient failures.
     *
     * @return the stored message
     */
    public String message() {
        return message;
    }

    @Override
    public String toString() {
        return isFinal ? "final(" + code + ")" : "transient";
    }
}
