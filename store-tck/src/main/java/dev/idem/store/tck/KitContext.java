package dev.idem.store.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * What one kit test works with: the fixture, a scope of its own (so tests never see each
 * other's records) and a source of distinct fencing tokens.
 */
final class KitContext {
    /** Leases and TTLs for records whose expiry is not the subject: far longer than any test. */
    static final Duration LONG = Duration.ofMinutes(10);
    /**
     * How far a simulated clock is moved before each test, so that no deadline of the test falls on
     * a whole second (or millisecond): a store that keeps coarser time than it reports cannot hide.
     */
    static final Duration OFF_THE_SECOND = Duration.ofNanos(123_456_789);

    final StoreFixture fixture;
    final String scope;
    private final LongSupplier tokens;

    KitContext(StoreFixture fixture, String scope, LongSupplier tokens) {
        this.fixture = fixture;
        this.scope = scope;
        this.tokens = tokens;
    }

    IdempotencyStore store() {
        return fixture.store();
    }

    /** The store for party {@code i}: even parties on one instance, odd ones on the other. */
    IdempotencyStore store(int i) {
        return i % 2 == 0 ? fixture.store() : fixture.otherStore();
    }

    IdempotencyKey key(String name) {
        return IdempotencyKey.of(scope, "charge", name);
    }

    long token() {
        return tokens.getAsLong();
    }
}
