package dev.idem.benchmarks.internal;

import dev.idem.api.IdempotencyKey;
import java.util.concurrent.ConcurrentHashMap;

/** One {@link ConcurrentHashMap#compute} per operation, on the same key type the engine uses. */
final class MemoryRaw implements RawBaseline {
    private final ConcurrentHashMap<IdempotencyKey, Rec> records = new ConcurrentHashMap<>();
    private final long leaseMillis;
    private final long ttlMillis;

    MemoryRaw(long leaseMillis, long ttlMillis) {
        this.leaseMillis = leaseMillis;
        this.ttlMillis = ttlMillis;
    }

    @Override
    public Object claim(IdempotencyKey key, byte[] fingerprint, long token) {
        long now = System.currentTimeMillis();
        Rec[] existing = new Rec[1];
        records.compute(key, (k, current) -> {
            if (current != null && current.expiresAt > now) {
                existing[0] = current;
                return current;
            }
            return new Rec(fingerprint, token, now + leaseMillis, now + ttlMillis, null);
        });
        return existing[0];
    }

    @Override
    public boolean complete(IdempotencyKey key, long token, byte[] outcome) {
        long now = System.currentTimeMillis();
        boolean[] done = new boolean[1];
        records.computeIfPresent(key, (k, current) -> {
            if (current.token != token || current.expiresAt <= now) {
                return current;
            }
            done[0] = true;
            return new Rec(current.fingerprint, token, 0, now + ttlMillis, outcome);
        });
        return done[0];
    }

    private static final class Rec {
        final byte[] fingerprint;
        final long token;
        final long leaseUntil;
        final long expiresAt;
        final byte[] outcome;

        Rec(byte[] fingerprint, long token, long leaseUntil, long expiresAt, byte[] outcome) {
            this.fingerprint = fingerprint;
            this.token = token;
            this.leaseUntil = leaseUntil;
            this.expiresAt = expiresAt;
            this.outcome = outcome;
        }
    }
}
