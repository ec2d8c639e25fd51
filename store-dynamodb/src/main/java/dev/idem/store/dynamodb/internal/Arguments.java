package dev.idem.store.dynamodb.internal;

import java.time.Duration;
import java.util.Objects;

/**
 * The store's argument checks, made before any request is sent, so that an input DynamoDB
 * would refuse (or that could not fit an item) fails at once with a message naming it. Not
 * part of the API.
 */
public final class Arguments {
    private Arguments() {
    }

    /**
     * Refuses a fingerprint over {@code max} bytes.
     *
     * @param fingerprint the fingerprint
     * @param max the largest accepted, in bytes
     */
    public static void checkFingerprint(byte[] fingerprint, int max) {
        Objects.requireNonNull(fingerprint, "fingerprint");
        if (fingerprint.length > max) {
            throw new IllegalArgumentException("fingerprint is " + fingerprint.length + " bytes; at most "
                    + max + " fit in a DynamoDB record");
        }
    }

    /**
     * Refuses an outcome or journal over the store's limit.
     *
     * @param what "outcome" or "journal", for the message
     * @param bytes the bytes
     * @param max the store's limit
     */
    public static void checkSize(String what, byte[] bytes, int max) {
        Objects.requireNonNull(bytes, what);
        if (bytes.length > max) {
            throw new IllegalArgumentException(what + " is " + bytes.length + " bytes; DynamoDB store holds at most "
                    + max + " (400 KB item limit)");
        }
    }

    /**
     * A lease or TTL in whole milliseconds, at least 1 ms.
     *
     * @param what the argument's name, for the message
     * @param d the duration
     * @return the duration in ms
     */
    public static long positiveMillis(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero() || d.toMillis() < 1) {
            throw new IllegalArgumentException(what + " must be at least 1 ms but was " + d);
        }
        return d.toMillis();
    }
}
