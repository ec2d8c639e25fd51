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
