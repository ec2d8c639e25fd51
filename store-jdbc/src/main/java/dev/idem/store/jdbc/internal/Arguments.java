package dev.idem.store.jdbc.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidIdempotencyKeyException;
import java.time.Duration;
import java.util.Objects;

/**
 * The store's checks of its callers' arguments, made before any statement runs, so a bad
 * argument never reaches the database and nothing is written.
 */
public final class Arguments {
    /** Longest lease or TTL accepted, as in the engine. */
    static final Duration MAX_DURATION = Duration.ofDays(3650);

    private Arguments() {
    }

    /**
     * Checks that a key can be stored as it is.
     *
     * @param key the key
     * @throws InvalidIdempotencyKeyException if its scope or operation has an unpaired surrogate
     */
    public static void checkKey(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        // Unpaired surrogates cannot be encoded: the drivers would store '?' and two different
        // keys could collide.
        checkEncodable("scope", key.scope());
        checkEncodable("operation", key.operation());
    }

    private static void checkEncodable(String part, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new InvalidIdempotencyKeyException(part + " has an unpaired surrogate at index " + i
                        + "; it cannot be stored in a database");
            }
        }
    }

    /**
     * Checks an outcome or journal against the store's limit.
     *
     * @param what what the bytes are, for the message
     * @param bytes the bytes
     * @param max the most the store holds
     * @throws IllegalArgumentException if there are more than {@code max} bytes
     */
    public static void checkSize(String what, byte[] bytes, int max) {
        Objects.requireNonNull(bytes, what);
        if (bytes.length > max) {
            throw new IllegalArgumentException(
                    what + " is " + bytes.length + " bytes; this store holds at most " + max);
        }
    }

    /**
     * A lease or TTL in whole milliseconds.
     *
     * @param name what the duration is, for the message
     * @param d the duration
     * @return its milliseconds
     * @throws IllegalArgumentException if it is under 1 ms or over 3650 days
     */
    public static long millis(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.toMillis() < 1) {
            throw new IllegalArgumentException(name + " must be at least 1 ms but was " + d);
        }
        if (d.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(name + " must be at most " + MAX_DURATION + " but was " + d);
        }
        return d.toMillis();
    }
}
