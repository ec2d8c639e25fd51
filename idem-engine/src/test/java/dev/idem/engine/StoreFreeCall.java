package dev.idem.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.internal.Fingerprinter;
import dev.idem.engine.internal.NearCache;
import dev.idem.engine.internal.OutcomeCodec;
import dev.idem.engine.internal.Sealer;
import dev.idem.engine.protection.KeyProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * One call's decisions with nothing under them: engine parts with no store, no port, no executor
 * and no timer, a ticker the test moves, a fixed jitter, and the events kept in a list. What a
 * call decides ({@link Execution#judge}, {@link Execution#finish}, {@link Ending}'s steps) is
 * checked on values alone; nothing here can reach a store or start a thread.
 */
final class StoreFreeCall {
    static final IdempotencyKey KEY = IdempotencyKey.of("tenant-1", "create-charge", "key-1");
    static final String REQUEST = "{\"amount\":100}";
    static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");
    static final Duration TTL = Duration.ofHours(1);

    final AtomicLong ticks = new AtomicLong(5_000_000_000L);
    final List<IdempotencyEvent.Type> events = new ArrayList<>();
    final OutcomeCodec codec = new OutcomeCodec(new ObjectMapper());
    KeyProvider secrets;
    NearCache nearCache;
    InProgressPolicy inProgress = InProgressPolicy.failFast();
    Duration retryAfterHint = Duration.ofSeconds(1);
    int maxOutcomeBytes = 4096;
    FailureClassifier classifier = e -> FailureDecision.transientFailure();
    double jitter = 0.5;

    /** The parts, as configured so far: every store-facing one is null. */
    EngineParts parts() {
        Fingerprinter fingerprinter = new Fingerprinter(codec.json(), 1 << 20, CallOptions.defaults().excludedSet(),
                secrets);
        RandomGenerator random = () -> (long) (jitter * (1L << 53)) << 11;
        IdempotencyListener listener = event -> events.add(event.type());
        return new EngineParts(null, null, null, codec, fingerprinter, Sealer.NONE, null, ticks::get, random,
                d -> { throw new AssertionError("a decision slept"); }, Duration.ofSeconds(30), TTL, inProgress,
                retryAfterHint, classifier, listener, nearCache, 3, maxOutcomeBytes, Duration.ofSeconds(5), null, null,
                new EngineParts.Tokens());
    }

    /** A call of {@link #KEY} with {@code request}, of untyped result. */
    Execution<Object> call(Object request, CallOptions options) {
        EngineParts parts = parts();
        return new Execution<>(parts, KEY, codec.mapper().constructType(Object.class), options, request);
    }

    Execution<Object> call() {
        return call(REQUEST, CallOptions.defaults());
    }

    /** A completed record of {@link #KEY} under {@code fingerprint} holding {@code outcome}. */
    static StoredRecord completed(byte[] fingerprint, byte[] outcome) {
        return new StoredRecord(KEY, RecordState.COMPLETED, fingerprint, 7, 1, NOW.minusSeconds(10), null,
                NOW.plus(TTL), outcome, null);
    }

    /** An in-progress record of {@link #KEY} under {@code fingerprint} whose lease ends {@code leaseLeft} from {@link #NOW}. */
    static StoredRecord inProgress(byte[] fingerprint, Duration leaseLeft, byte[] journal) {
        return new StoredRecord(KEY, RecordState.IN_PROGRESS, fingerprint, 7, 1, NOW.minusSeconds(10),
                NOW.plus(leaseLeft), NOW.plus(TTL), null, journal);
    }
}
