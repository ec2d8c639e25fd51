package dev.idem.store.hybrid.internal;

/** What the observed script ({@code observed.lua}) makes of a read of the database. */
enum ObservedAction implements GateLetter {
    /** The gate shows a predicted claim the read is consistent with: answer that claim's record. */
    PREDICTED_CLAIM('P'),
    /** The gate showed something the database contradicts; it now holds UNKNOWN. */
    CONTRADICTED('U'),
    /** The read found nothing but the gate held a record, not UNKNOWN until now: read again. */
    CORRECTED_READ_AGAIN('V'),
    /** The read found nothing but the gate holds an UNKNOWN record: read again. */
    READ_AGAIN('N'),
    /** The gate agrees with the read. */
    KEPT('K');

    private final char letter;

    ObservedAction(char letter) {
        this.letter = letter;
    }

    @Override
    public char letter() {
        return letter;
    }
}
