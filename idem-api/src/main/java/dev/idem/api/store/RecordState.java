package dev.idem.api.store;

/** The state of a stored idempotency record. */
public enum RecordState {
    /** A worker holds the key under a lease and is running the work. */
    IN_PROGRESS,
    /** The outcome is stored; duplicates replay it until the record expires. */
    COMPLETED,
    /**
     * The last worker gave the key back after a transient failure; the next claim wins it
     * as if the record were absent, but the attempt count carries on.
     */
    RELEASED;

    /**
     * Stable one-letter code stores may persist instead of the name.
     *
     * @return stable one-letter code stores may persist instead of the name
     */
    public char code() {
        return name().charAt(0);
    }

    /**
     * Inverse of {@link #code()}.
     *
     * @param code a code returned by {@link #code()}
     * @return the state with that code
     */
    public static RecordState fromCode(char code) {
        switch (code) {
            case 'I': return IN_PROGRESS;
            case 'C': return COMPLETED;
            case 'R': return RELEASED;
            default: throw new IllegalArgumentException("unknown record state code '" + code + "'");
        }
    }
}
