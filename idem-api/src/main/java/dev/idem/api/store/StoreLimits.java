package dev.idem.api.store;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The argument checks every store makes before it writes (sizes, and leases and TTLs), in one place so that every adapter
 * refuses an oversized fingerprint, outcome or step journal alike: with an
 * {@link IllegalArgumentException} naming the size and the limit, before anything is sent
 * or stored (as {@link IdempotencyStore#complete} and {@link IdempotencyStore#checkpoint}
 * promise).
 */
public final class StoreLimits {
    private StoreLimits() {
    }

    /**
     * Refuses a fingerprint over {@code max} bytes (a column's width, an item's share).
     *
     * @param fingerprint the fingerprint
     * @param max the largest accepted, in bytes
     * @throws IllegalArgumentException if it is longer
     */
    public static void checkFingerprint(byte[] fingerprint, int max) {
        Objects.requireNonNull(fingerprint, "fingerprint");
        if (fingerprint.length > max) {
            throw new IllegalArgumentException("fingerprint is " + fingerprint.length + " bytes; at most "
                    + max + " allowed");
        }
    }

    /**
     * A lease or TTL in whole milliseconds: refuses one under 1 ms or over {@code max} (the
     * longest the store can keep a deadline), naming the argument.
     *
     * @param name {@code "lease"} or {@code "ttl"}, for the message
     * @param d the duration
     * @param max the longest the store accepts
     * @return the duration in milliseconds
     * @throws IllegalArgumentException if it is shorter than 1 ms or longer than {@code max}
     */
    public static long durationMillis(String name, Duration d, Duration max) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.toMillis() < 1) {
            throw new IllegalArgumentException(name + " must be at least 1 ms but was " + d);
        }
        if (d.compareTo(max) > 0) {
            throw new IllegalArgumentException(name + " must be at most " + max + " but was " + d);
        }
        return d.toMillis();
    }

    /**
     * Refuses an outcome or step journal over the store's limit
     * ({@link StoreCapabilities#maxOutcomeBytes()}).
     *
     * @param what {@code "outcome"} or {@code "journal"}, for the message
     * @param bytes the bytes to store
     * @param max the store's limit, in bytes
     * @throws IllegalArgumentException if they are longer
     */
    public static void checkSize(String what, byte[] bytes, int max) {
        checkSize(what, bytes, max, null);
    }

    /**
     * Like {@link #checkSize(String, byte[], int)}, and the message names where the limit
     * comes from (a backend's item or value limit).
     *
     * @param what {@code "outcome"} or {@code "journal"}, for the message
     * @param bytes the bytes to store
     * @param max the store's limit, in bytes
     * @param why where the limit comes from, or null
     * @throws IllegalArgumentException if they are longer
     */
    public static void checkSize(String what, byte[] bytes, int max, @Nullable String why) {
        Objects.requireNonNull(bytes, what);
        if (bytes.length > max) {
            throw new IllegalArgumentException(what + " is " + bytes.length + " bytes; this store holds at most "
                    + max + (why == null ? "" : " (" + why + ")"));
        }
    }
}
