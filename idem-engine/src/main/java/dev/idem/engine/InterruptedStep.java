package dev.idem.engine;

import dev.idem.api.IdempotencyKey;

/**
 * An at-most-once step found started without a result: what a {@link StepReconciler} is
 * told about it.
 *
 * @param key the idempotency key whose work it belongs to
 * @param name the step's name
 * @param startedBy the attempt that wrote the step's start marker and was interrupted
 * @param attempt the attempt that found it and asks to settle it
 * @param downstreamKey the step's downstream key ({@link ExecutionContext#downstreamKey(String)}),
 *     the same one the interrupted attempt had: the reference to look the effect up by, if the step
 *     passed it on
 */
public record InterruptedStep(IdempotencyKey key, String name, int startedBy, int attempt, String downstreamKey) {
}
