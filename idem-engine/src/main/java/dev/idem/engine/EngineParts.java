package dev.idem.engine;

import com.fasterxml.jackson.databind.JavaType;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.time.Sleeper;
import dev.idem.api.time.Ticker;
import dev.idem.engine.internal.Fingerprinter;
import dev.idem.engine.internal.NearCache;
import dev.idem.engine.internal.OutcomeCodec;
import dev.idem.engine.internal.Sealer;
import dev.idem.engine.protection.OutcomeFilter;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * What one engine's calls are made of, built once by {@link IdempotencyEngine} from its builder and
 * handed to every call: the store and the ways to it, the codec, fingerprinter and sealer, time and
 * randomness, the settings a call starts from, and the engine's shared parts (near cache, shared
 * polls, async runtime). Immutable: a call reads it, never the engine.
 *
 * @param store the store
 * @param direct how a blocking call reaches the store
 * @param asyncPort how an asynchronous call reaches the store (decided once, when the engine is built)
 * @param codec the outcome codec
 * @param fingerprinter the request fingerprinter
 * @param sealer the outcome and journal sealer ({@link Sealer#NONE} when nothing is encrypted)
 * @param outcomeFilter the engine's outcome filter, or null
 * @param ticker the monotonic time every duration is measured on
 * @param random the jitter of waiting callers' pauses
 * @param sleeper how a blocking caller pauses
 * @param lease the engine's lease
 * @param ttl the engine's TTL
 * @param inProgress the engine's policy for a key in progress
 * @param retryAfterHint the retry hint of a 409
 * @param classifier the failure classifier
 * @param listener the event listener
 * @param nearCache the near cache, or null
 * @param completeAttempts how often a write after the work is tried at most
 * @param maxOutcomeBytes the largest outcome stored
 * @param minBudgetLease the shortest lease a deadline may cut a claim's to
 * @param async the executors and timers of asynchronous calls
 * @param polls the waiting callers' shared polls
 * @param tokens where fencing tokens come from
 */
record EngineParts(IdempotencyStore store, DirectPort direct, StorePort asyncPort, OutcomeCodec codec,
        Fingerprinter fingerprinter, Sealer sealer, OutcomeFilter outcomeFilter, Ticker ticker,
        RandomGenerator random, Sleeper sleeper, Duration lease, Duration ttl, InProgressPolicy inProgress,
        Duration retryAfterHint, FailureClassifier classifier, IdempotencyListener listener, NearCache nearCache,
        int completeAttempts, int maxOutcomeBytes, Duration minBudgetLease, AsyncRuntime async, SharedPolls polls,
        Tokens tokens) {

    /**
     * Fencing tokens: never from the injectable jitter randomness, since a fixed or shared generator
     * would give a taker-over the stale worker's token. A secret random base plus a counter is unique
     * per claim within an engine and unpredictable across engines.
     */
    static final class Tokens {
        private final long base = new SecureRandom().nextLong();
        private final AtomicLong counter = new AtomicLong();

        long next() {
            return base + counter.incrementAndGet();
        }
    }

    /** A fresh fencing token. */
    long nextToken() {
        return tokens.next();
    }

    /** Encodes a success value: {@link StoredBytes} as they are, anything else as JSON. */
    byte[] encodeSuccess(Object value) {
        return value instanceof StoredBytes b ? b.encode(codec) : codec.encodeSuccess(value);
    }

    /**
     * Decodes a success outcome as {@code type}: a {@link StoredBytes} type views the stored bytes
     * (a JSON outcome's text, too), and so does the untyped call for an outcome stored as bytes.
     */
    Object decodeSuccess(byte[] outcome, JavaType type) {
        Class<?> raw = type.getRawClass();
        if (raw == StoredBytes.class || raw == Object.class && codec.kind(outcome) == OutcomeCodec.Kind.BYTES) {
            return StoredBytes.view(outcome, 1, outcome.length - 1);
        }
        return codec.decodeSuccess(outcome, type);
    }
}
