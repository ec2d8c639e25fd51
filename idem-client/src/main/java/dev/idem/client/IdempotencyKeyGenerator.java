package dev.idem.client;

import dev.idem.client.internal.UuidV7Generator;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Objects;
import java.util.UUID;
import java.util.random.RandomGenerator;

/**
 * Makes the idempotency key of a logical operation. Called once per operation, before its first
 * attempt; every retry reuses the key. Keys must be unique across clients for as long as the server
 * remembers them, so implementations draw on strong randomness. Must be thread-safe.
 */
@FunctionalInterface
public interface IdempotencyKeyGenerator {

    /**
     * Returns a fresh key: a non-empty string of visible ASCII, safe in an HTTP header.
     *
     * @return a fresh key
     */
    String newKey();

    /**
     * UUIDv7 (RFC 9562): a millisecond Unix timestamp followed by random bits, so keys sort by
     * creation time and land near each other in a server's index. Keys from one generator are strictly
     * increasing. This is the default.
     *
     * @return UUIDv7 (RFC 9562)
     */
    static IdempotencyKeyGenerator uuidV7() {
        return new UuidV7Generator(Clock.systemUTC(), new SecureRandom())::newKey;
    }

    /**
     * UUIDv7 from the given clock and randomness; {@code random} must be thread-safe.
     *
     * @param clock the clock
     * @param random the jitter source
     * @return UUIDv7 from the given clock and randomness
     */
    static IdempotencyKeyGenerator uuidV7(Clock clock, RandomGenerator random) {
        return new UuidV7Generator(
                Objects.requireNonNull(clock, "clock must not be null"),
                Objects.requireNonNull(random, "random must not be null"))::newKey;
    }

    /**
     * UUIDv4, for servers that prefer keys that reveal nothing about time.
     *
     * @return UUIDv4, for servers that prefer keys that reveal nothing about time
     */
    static IdempotencyKeyGenerator randomUuid() {
        return () -> UUID.randomUUID().toString();
    }
}
