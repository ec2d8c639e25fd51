package dev.idem.client.internal;

import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * RFC 9562 UUIDv7: 48-bit Unix milliseconds, version 7, 12 bits {@code rand_a}, variant, 62 random
 * bits. The 60 bits before the variant are kept strictly increasing per generator (the "monotonic
 * random" idea of RFC 9562 section 6.2): when the clock stalls or steps back, the previous value plus
 * one is used, so keys from one generator stay ordered. Not API. It imports nothing from the
 * public package: {@code IdempotencyKeyGenerator.uuidV7()} adapts it, so the two files form no
 * import cycle.
 */
public final class UuidV7Generator {

    private static final long RAND_A_MASK = 0xFFFL;
    private static final long TIMESTAMP_MASK = 0xFFFF_FFFF_FFFFL;

    private final Clock clock;
    private final RandomGenerator random;
    /** Timestamp (48 bits) and rand_a (12 bits) of the last key, or -1 before the first. */
    private final AtomicLong last = new AtomicLong(-1);

    public UuidV7Generator(Clock clock, RandomGenerator random) {
        this.clock = clock;
        this.random = random;
    }

    /** Returns the next UUID as text, the form {@code IdempotencyKeyGenerator.newKey()} gives. */
    public String newKey() {
        return next().toString();
    }

    /** Returns the next UUID. */
    public UUID next() {
        long millis = clock.millis() & TIMESTAMP_MASK;
        long candidate = (millis << 12) | (random.nextLong() & RAND_A_MASK);
        long prefix = last.accumulateAndGet(candidate, (prev, next) -> next > prev ? next : prev + 1);
        long msb = ((prefix >>> 12) << 16) | 0x7000L | (prefix & RAND_A_MASK);
        long lsb = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb);
    }
}
