package dev.idem.api.store;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The non-blocking form of a store's operations, offered by a store whose client answers
 * without parking a thread (the DynamoDB store over a {@code DynamoDbAsyncClient}, the Redis
 * store over Lettuce): {@link IdempotencyStore#nonBlocking()} returns it. The engine's
 * asynchronous path ({@code executeAsync}, and so Reactor and WebFlux) then sends its claims,
 * completions, releases and lease renewals through it and holds no thread while the store
 * answers; blocking calls keep using the blocking operations.
 *
 * <p>Each operation has exactly the contract of the {@link IdempotencyStore} operation of the same
 * name, on the same records (a record written through one form is read through the other), and is
 * one round trip where that one is. Contract of the form:
 * <ul>
 *   <li>the call returns at once, never waiting for the backend; its stage completes later,
 *       usually on the client's I/O thread, where the caller must not block;</li>
 *   <li>a backend failure completes the stage exceptionally with a
 *       {@link StoreUnavailableException} (possibly wrapped in a
 *       {@link java.util.concurrent.CompletionException}); it is never thrown by the call itself;</li>
 *   <li>invalid arguments (and an outcome over {@link StoreCapabilities#maxOutcomeBytes()}) may be
 *       thrown at once as {@link IllegalArgumentException}, as the blocking form does.</li>
 * </ul>
 */
public interface NonBlockingStore {

    /**
     * {@link IdempotencyStore#claim}, without blocking.
     *
     * @param key the key
     * @param fingerprint the request fingerprint
     * @param fencingToken a fresh token chosen by the caller (unique per claim)
     * @param lease how long the claim holds the key
     * @param ttl how long the record lives
     * @return how the claim ended, with the record after it
     */
    CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl);

    /**
     * {@link IdempotencyStore#complete}, without blocking.
     *
     * @param key the key
     * @param fencingToken the token of the caller's claim
     * @param outcome the outcome to store (opaque bytes)
     * @param ttl how long the COMPLETED record lives
     * @return false if the token is not current; nothing changed then
     */
    CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl);

    /**
     * {@link IdempotencyStore#release}, without blocking.
     *
     * @param key the key
     * @param fencingToken the token of the caller's claim
     * @return false if the token is not current; nothing changed then
     */
    CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken);

    /**
     * {@link IdempotencyStore#checkpoint}, without blocking.
     *
     * @param key the key
     * @param fencingToken the token of the caller's claim
     * @param journal the step journal to save (opaque bytes)
     * @return false if the token is not current; nothing changed then
     */
    CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal);

    /**
     * {@link IdempotencyStore#extendLease}, without blocking.
     *
     * @param key the key
     * @param fencingToken the token of the caller's claim
     * @param lease the new lease, counted from the store's now
     * @return the new lease deadline, or empty if the token is not current
     */
    CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken, Duration lease);

    /**
     * {@link IdempotencyStore#find}, without blocking.
     *
     * @param key the key
     * @return the unexpired record for the key, if any (RELEASED records included)
     */
    CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key);

    /**
     * How many of one engine's calls this store takes at once before they would queue inside its
     * client (its connection pool, its pipeline): the engine keeps further calls waiting in no
     * thread and sends lease renewals past them, so a renewal waits behind at most this many calls
     * in the client. Defaults to 256.
     *
     * @return a positive bound on the calls the engine sends at once
     */
    default int maxCallsInFlight() {
        return 256;
    }
}
