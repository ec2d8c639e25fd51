package dev.idem.api.store;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The persistence SPI: a handful of atomic operations over opaque bytes. Each operation
 * must be atomic with respect to every other operation on the same key, across all
 * processes sharing the backend, and on a remote backend should be one round trip.
 *
 * <p>Applications build a store and hand it to the engine, which is the only caller of these
 * operations:
 * <pre>{@code
 * IdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build();  // or MemoryIdempotencyStore.create(),
 *                                                                              // RedisIdempotencyStore, DynamoDbIdempotencyStore
 * IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
 * }</pre>
 * An adapter for another backend implements the operations below and proves them by
 * extending the store test kit ({@code idem-store-tck}) in a few lines:
 * <pre>{@code
 * class MyStoreContractTest extends IdempotencyStoreContract {
 *     protected StoreFixture createFixture() { return new MyStoreFixture(); }
 * }
 * }</pre>
 *
 * <p>"Now" is the store's clock. A record whose {@code expiresAt <= now} is absent for every
 * operation. Fencing: {@link #complete}, {@link #release} and {@link #extendLease} act only
 * if the record is IN_PROGRESS (unexpired) and carries the caller's token; otherwise they
 * change nothing and report failure. The lease deadline is not checked by them: a worker
 * whose lease lapsed but was not taken over still holds the only valid token, and letting
 * it finish is safe.
 *
 * <p>Backend failures (unreachable, timeout, throttled, a reply that cannot be parsed) are
 * thrown as {@link StoreUnavailableException}; a store never turns an error into "absent".
 * Implementations are thread-safe.
 */
public interface IdempotencyStore extends AutoCloseable {

    /**
     * In one atomic step: if the key is absent, expired or RELEASED, write
     * {@code IN_PROGRESS(fingerprint, fencingToken, lease = now + lease, expiresAt = max(now + ttl, lease))}
     * with attempt 1 (or the released record's attempt + 1) and return ACQUIRED; else if it
     * is IN_PROGRESS with {@code leaseExpiresAt <= now} and the same fingerprint, overwrite it
     * the same way with attempt + 1 and return TAKEN_OVER; else return EXISTING with the
     * record unchanged (state, fingerprint, outcome).
     *
     * <p>A store whose client retries requests on its own may find the record IN_PROGRESS with
     * the caller's own token (its first attempt landed, the reply was lost); it may then report
     * the claim as won, since tokens are unique per claim. The engine never reuses a token.
     *
     * @param fencingToken a fresh token chosen by the caller (unique per claim)
     * @param key the key
     * @param fingerprint the request fingerprint
     * @param lease how long the claim holds the key
     * @param ttl how long the record lives
     * @return how the claim ended, with the record after it
     */
    ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease, Duration ttl);

    /**
     * Stores the outcome and flips the record to COMPLETED with {@code expiresAt = now + ttl},
     * dropping the journal, if the caller's token is current. Repeating a successful complete with the same token
     * returns true again (so an ambiguous network failure can be retried).
     *
     * @param key the key
     * @param fencingToken the token of the caller's claim
     * @param outcome the outcome to store (opaque bytes)
     * @param ttl how long the COMPLETED record lives
     * @return false if the token is not current (the lease was lost); nothing changed then
     * @throws IllegalArgumentException if the outcome exceeds {@link StoreCapabilities#maxOutcomeBytes()}
     */
    boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl);

    /**
     * Gives the key back after a transient failure (state RELEASED, journal kept), if the
     * token is current, so the next claim runs the work again. Repeating a successful release
     * with the same token returns true again while the record is still RELEASED with that
     * token (so a client-level retry after a lost reply is not mistaken for a lost lease).
     *
     * @param key the key
     * @param fencingToken the token of the caller's claim
     * @return false if the token is not current; nothing changed then
     */
    boolean release(IdempotencyKey key, long fencingToken);

    /**
     * Replaces the record's step journal with {@code journal}, if the record is IN_PROGRESS
     * (unexpired) with the caller's token; the lease, expiry, attempt and creation time stay
     * as they are. Like {@link #complete}, it is fenced by the token only, and repeating it
     * with the same token and bytes returns true again. One round trip on a remote store.
     *
     * @param key the key
     * @param fencingToken the token of the caller's claim
     * @param journal the step journal to save (opaque bytes)
     * @return false if the token is not current; nothing changed then
     * @throws IllegalArgumentException if the journal exceeds {@link StoreCapabilities#maxOutcomeBytes()}
     */
    boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal);

    /**
     * Moves the lease deadline to {@code now + lease} (and {@code expiresAt} to at least that),
     * if the token is current.
     *
     * @param key the key
     * @param fencingToken the token of the caller's claim
     * @param lease the new lease, counted from the store's now
     * @return the new lease deadline, or empty if the token is not current
     */
    Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease);

    /**
     * The unexpired record for the key, if any (RELEASED records included).
     *
     * @param key the key
     * @return the unexpired record for the key, if any (RELEASED records included)
     */
    Optional<StoredRecord> find(IdempotencyKey key);

    /**
     * Deletes up to {@code limit} expired records and returns how many it deleted. Meant to
     * be called periodically; stores with native expiry may return 0.
     *
     * @param limit the most records to delete in this call, positive
     * @return the number of records deleted
     */
    int purgeExpired(int limit);

    /**
     * What this store can do; fixed for the store's life (the engine reads it once).
     *
     * @return what this store can do
     */
    StoreCapabilities capabilities();

    /**
     * Whether this store keeps its records in {@code store}: true when it is {@code store}, and,
     * for a decorator (metrics, tracing, a gate in front of a database), when the store it
     * forwards to does. The engine asks this before it runs work bound to one store (store-jdbc's
     * transactional mode), so that work completing its record in another store's transaction is
     * refused before anything is claimed. A decorator that forwards to a delegate must answer
     * {@code this == store || delegate.isBackedBy(store)}.
     *
     * @param store the store the work completes its record in
     * @return whether this store's records are {@code store}'s records
     */
    default boolean isBackedBy(IdempotencyStore store) {
        return this == store;
    }

    /**
     * The non-blocking form of this store's operations, if its client offers one; empty by
     * default. The engine's asynchronous calls use it when present (holding no thread while the
     * store answers) and the blocking operations otherwise. A decorator that forwards the
     * blocking operations must decorate this view as well, or leave it empty (then the engine
     * calls the decorator's blocking operations on its own threads): forwarding the delegate's
     * view unchanged would let asynchronous calls bypass the decorator.
     *
     * @return the non-blocking operations on the same records, or empty
     */
    default Optional<NonBlockingStore> nonBlocking() {
        return Optional.empty();
    }

    /** Releases resources the store created itself; never closes clients the user passed in. */
    @Override
    default void close() {
    }
}
