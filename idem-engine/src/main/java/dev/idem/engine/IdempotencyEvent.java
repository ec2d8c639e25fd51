package dev.idem.engine;

import java.time.Duration;
import java.util.Objects;

/**
 * One thing the engine did or saw.
 *
 * @param type what happened
 * @param scope the key's scope
 * @param operation the key's operation
 * @param attempt the attempt number involved (0 when no claim was made)
 * @param duration time from the start of {@code execute} to the event
 * @param key the client's key within scope and operation; listeners must not export it
 *     raw by default (it may be sensitive and explodes metric cardinality)
 * @param recordAge on a {@link Type#REPLAY} served from the store, how long ago the
 *     record was first claimed (by the engine's clock against the record's
 *     {@code createdAt}, never negative); null for other events and for near-cache replays
 */
public record IdempotencyEvent(Type type, String scope, String operation, int attempt, Duration duration,
        String key, Duration recordAge) {

    /**
     * Checks the required components.
     *
     * @param type what happened
     * @param scope the key's scope
     * @param operation the key's operation
     * @param attempt the attempt number involved (0 when no claim was made)
     * @param duration time from the start of {@code execute} to the event
     * @param key the client's key within scope and operation
     * @param recordAge on a store replay, how long ago the record was created; otherwise null
     */
    public IdempotencyEvent {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(key, "key");
    }

    /** Event types. */
    public enum Type {
        /** The work ran and its outcome was stored. */
        FIRST_EXECUTION,
        /** A stored outcome (success or final failure) was returned without running the work. */
        REPLAY,
        /** A duplicate found the key held by a live lease (once per call, however long it waits). */
        IN_PROGRESS_CONFLICT,
        /** The key was reused with a different request. */
        KEY_REUSED,
        /** A lapsed lease was taken over (the previous worker probably crashed). */
        LEASE_TAKEN_OVER,
        /** This execution's lease had been taken over; its result was discarded. */
        LEASE_LOST,
        /** The work failed transiently and the key was released. */
        RELEASED_ON_TRANSIENT_FAILURE,
        /** The work failed finally and the failure was stored. */
        FINAL_FAILURE_STORED,
        /** The work ran but its outcome could not be stored (store failure or size limit). */
        OUTCOME_NOT_STORED,
        /**
         * The caller's deadline had passed before the work could start (attempt 0: before the claim,
         * nothing stored; otherwise while claiming, and the claim was given back); nothing ran.
         */
        DEADLINE_EXCEEDED;

        /**
         * The one name metrics and traces give this type (the {@code outcome} tag, the
         * {@code idem.outcome} attribute): {@code executed}, {@code replayed}, and the lower-case
         * name of every other type ({@code in_progress_conflict}, {@code key_reused},
         * {@code lease_taken_over}, {@code lease_lost}, {@code released_on_transient_failure},
         * {@code final_failure_stored}, {@code outcome_not_stored}, {@code deadline_exceeded}).
         *
         * @return the outcome name, lower snake case
         */
        public String outcome() {
            switch (this) {
                case FIRST_EXECUTION: return "executed";
                case REPLAY: return "replayed";
                default: return name().toLowerCase(java.util.Locale.ROOT);
            }
        }
    }
}
