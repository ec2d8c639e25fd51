package dev.idem.store.hybrid.internal;

import dev.idem.api.store.RecordState;

/** The state of a gate record (field {@code s} in {@code common.lua}). */
enum GateState implements GateLetter {
    /** The database's IN_PROGRESS record, or a prediction of it. */
    IN_PROGRESS('I'),
    /** The database's COMPLETED record. */
    COMPLETED('C'),
    /** The database's RELEASED record. */
    RELEASED('R'),
    /** The gate does not know: every claim goes to the database, none is predicted. */
    UNKNOWN('U');

    private final char letter;

    GateState(char letter) {
        this.letter = letter;
    }

    @Override
    public char letter() {
        return letter;
    }

    /** The gate's name of a database state. */
    static GateState of(RecordState state) {
        switch (state) {
            case IN_PROGRESS: return IN_PROGRESS;
            case COMPLETED: return COMPLETED;
            case RELEASED: return RELEASED;
            default: throw new IllegalArgumentException("no gate state for " + state);
        }
    }

    /**
     * The database state this is.
     *
     * @throws IllegalArgumentException for {@link #UNKNOWN}, which is no record to answer from
     */
    RecordState recordState() {
        switch (this) {
            case IN_PROGRESS: return RecordState.IN_PROGRESS;
            case COMPLETED: return RecordState.COMPLETED;
            case RELEASED: return RecordState.RELEASED;
            default: throw new IllegalArgumentException("the gate's record is in state " + this);
        }
    }
}
