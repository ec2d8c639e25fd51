package dev.idem.store.hybrid.internal;

/** What the claim script ({@code claim.lua}) tells the Java side to do. */
enum ClaimAction implements GateLetter {
    /** Answer from the gate: a completed record (any fingerprint), or a live lease of this request. */
    ANSWER('A'),
    /** A completed record whose outcome the gate does not keep: the database answers. */
    READ_OUTCOME('R'),
    /** A predicted lease of another request: check the database before answering. */
    CHECK_PREDICTION('F'),
    /** The gate wrote this claim's own IN_PROGRESS record (a prediction); the database decides now. */
    PREDICTED('P'),
    /** The gate cannot tell: the database decides (the claim is counted as pending meanwhile). */
    ASK_DATABASE('D'),
    /** As {@link #ASK_DATABASE}, and the record there was not this key's gate record: it is gone. */
    FOREIGN_REMOVED('X');

    private final char letter;

    ClaimAction(char letter) {
        this.letter = letter;
    }

    @Override
    public char letter() {
        return letter;
    }
}
