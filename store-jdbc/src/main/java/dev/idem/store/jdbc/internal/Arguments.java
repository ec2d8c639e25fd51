package dev.idem.store.jdbc.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidIdempotencyKeyException;
import dev.idem.api.store.StoreLimits;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import java.time.Duration;
import java.util.Objects;

/**
 * The store's argument checks, in one place so that its plain and transactional operations
 * refuse the same inputs with the same messages, before anything is written.
 */
public final class Arguments {
    private Arguments() {
    }

    /**
     * Refuses a key that cannot be stored exactly. Unpaired surrogates cannot be encoded:
     * the drivers would store '?' and two different keys could collide.
     *
     * @param key the key
     * @throws InvalidIdempotencyKeyException if scope or operation has an unpaired surrogate
     */
    public static void checkKey(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        checkEncodable("scope", key.scope());
        checkEncodable("operation", key.operation());
    }

    /**
     * A lease or TTL in whole milliseconds, at least 1 ms and at most about ten years.
     *
     * @param name the argument's name, for the message
     * @param d the duration
     * @return the duration in ms
     */
    public static long millis(String name, Duration d) {
        return StoreLimits.durationMillis(name, d, JdbcIdempotencyStore.MAX_DURATION);
    }

    /**
     * The builder's outcome limit, at least 1 MiB.
     *
     * @param maxOutcomeBytes the limit
     * @return the limit
     */
    public static int checkMaxOutcomeBytes(int maxOutcomeBytes) {
        if (maxOutcomeBytes < 1024 * 1024) {
            throw new IllegalArgumentException("maxOutcomeBytes must be at least 1 MiB (1048576) but was "
                    + maxOutcomeBytes);
        }
        return maxOutcomeBytes;
    }

    /**
     * The builder's query timeout in whole seconds, as JDBC takes it; zero for none.
     *
     * @param timeout zero or whole seconds
     * @return the seconds
     */
    public static int queryTimeoutSeconds(Duration timeout) {
        Objects.requireNonNull(timeout, "queryTimeout");
        if (timeout.isNegative() || (!timeout.isZero() && timeout.getSeconds() < 1)
                || timeout.getSeconds() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("queryTimeout must be zero or whole seconds >= 1 but was " + timeout);
        }
        return (int) timeout.getSeconds();
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
}
