package dev.idem.api.store;

/**
 * What a store can do beyond the required operations, so the engine and the test kit can
 * adapt instead of guessing.
 *
 * @param nativeExpiry the backend removes expired records by itself (Redis TTL, DynamoDB
 *     TTL), so {@link IdempotencyStore#purgeExpired} is optional housekeeping (the Spring Boot
 *     starter schedules no purge then, and the test kit skips its purge checks)
 * @param serverClock leases and expiry are judged by the backend's clock, not the JVM's,
 *     so application nodes with skewed clocks cannot steal live leases; the instants in the
 *     store's records are then on that clock, and the engine converts them (through the
 *     claim's store time) before comparing them with its own, as its near cache does
 * @param maxOutcomeBytes the largest outcome {@link IdempotencyStore#complete} (and the largest
 *     journal {@link IdempotencyStore#checkpoint}) accepts; at least 1 MiB
 *     unless the backend cannot hold it in one record (DynamoDB's 400 KB item), which the
 *     store then documents. The engine never sends more: a larger outcome is kept as a final
 *     "outcome not stored" marker, so the work is never run again for that key.
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
