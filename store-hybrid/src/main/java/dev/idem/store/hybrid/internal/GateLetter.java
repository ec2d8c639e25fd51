package dev.idem.store.hybrid.internal;

/**
 * A word of the gate scripts' protocol: each is one ASCII letter on the wire (see the scripts'
 * headers), read once where a reply arrives ({@link #decode}) and a named constant everywhere
 * else, so no letter means two things in Java (the scripts' 'R' is both a claim's "read the
 * outcome from the database" and the state RELEASED).
 */
interface GateLetter {
    /** The letter on the wire. */
    char letter();

    /**
     * The constant of {@code type} whose letter is {@code letter}.
     *
     * @throws IllegalArgumentException if none is
     */
    static <E extends Enum<E> & GateLetter> E decode(Class<E> type, int letter) {
        for (E e : type.getEnumConstants()) {
            if (e.letter() == letter) {
                return e;
            }
        }
        throw new IllegalArgumentException("no " + type.getSimpleName() + " has the letter '" + (char) letter + "'");
    }
}
