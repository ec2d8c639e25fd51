package dev.idem.engine;

/**
 * Decides what an exception from the work means for the key. The default treats every
 * exception as {@link FailureDecision#transientFailure() transient}: the key is released
 * and a retry runs the work again. Mark a failure {@link FailureDecision#finalFailure final}
 * when repeating the request can never succeed (a declined card, a validation error): the
 * engine stores the code and message and replays them to every retry.
 *
 * <p>{@link Error}s are never passed here: they always release and rethrow.
 */
@FunctionalInterface
public interface FailureClassifier {
    /** Every exception is transient. */
    FailureClassifier ALL_TRANSIENT = e -> FailureDecision.transientFailure();

    /**
     * Classifies an exception thrown by the work.
     *
     * @param failure what the work threw
     * @return release (transient) or store (final)
     */
    FailureDecision classify(Exception failure);
}
