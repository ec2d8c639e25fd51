package dev.idem.api.store;

/**
 * What a store can do beyond the required operations, so the engine and the test kit can
 * adapt instead of guessing.
 *
 * @param nativeExpiry the backend removes expired records by itself (Redis TTL, DynamoDB
 *     TTL), so {@link IdempotencyStore#purgeExpired} is optional housekeeping
 * @param serverClock leases and expiry are judged by the backend's clock, not the JVM's,
 *     so application nodes with skewed clocks cannot steal live leases
 * @param maxOutcomeBytes the largest outcome {@link IdempotencyStore#complete} (and the largest
 *     journal {@link IdempotencyStore#checkpoint}) accepts; at least 1 MiB
 *     unless the backend cannot hold it in one record (DynamoDB's 400 KB item), which the
 *     store then documents. The engine never sends more: a larger outcome is returned to the
 *     caller unstored and the key released.
 */
public record StoreCapabilities(boolean nativeExpiry, boolean serverClock, int maxOutcomeBytes) {
    /**
     * Validates the values.
     *
     * @param nativeExpiry whether the backend removes expired records by itself
     * @param serverClock whether leases and expiry are judged by the backend's clock
     * @param maxOutcomeBytes the largest outcome or journal the store accepts, positive
     */
    public StoreCapabilities {
        if (maxOutcomeBytes < 1) {
            throw new IllegalArgumentException("maxOutcomeBytes must be positive but was " + maxOutcomeBytes);
        }
    }
}
