package dev.idem.store.hybrid.internal;

/**
 * What a script that tells the gate the database's news ({@code fix}, {@code finished},
 * {@code extended}, {@code refused}) did with its record.
 */
enum GateWrite implements GateLetter {
    /** The news was written. */
    WRITTEN('W'),
    /** Someone else wrote the same knowledge meanwhile; it stays ({@code fix}). */
    SAME_KEPT('S'),
    /** The record already agreed and stays. */
    KEPT('K'),
    /** The gate held something the news contradicts (or not what the caller saw): now UNKNOWN. */
    NOW_UNKNOWN('U'),
    /**
     * The token's claim is shown as predicted and may not have reached the database yet: nothing
     * changed ({@code refused}).
     */
    PREDICTION_PENDING('P');

    private final char letter;

    GateWrite(char letter) {
        this.letter = letter;
    }

    @Override
    public char letter() {
        return letter;
    }
}
