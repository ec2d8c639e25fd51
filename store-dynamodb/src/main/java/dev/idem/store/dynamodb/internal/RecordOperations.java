package dev.idem.store.dynamodb.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The store's operations after the claim ({@link ClaimMachine}): the writes fenced by the
 * token, each one conditional {@code UpdateItem}, and the consistent read. Arguments
 * arrive checked; leases and expiry are judged by the store's clock. Not part of the API.
 */
public final class RecordOperations {
    private static final int MAX_ROUNDS = 8;

    private final DynamoDbCalls client;
    private final String table;
    private final ItemCodec codec;
    private final Requests requests;
    private final Clock clock;
    private final int defaultMaxOutcomeBytes;

    /**
     * The operations on {@code table}.
     *
     * @param client the client's calls
     * @param table the table name
     * @param codec the codec
     * @param requests the request builder
     * @param clock the store's clock
     * @param defaultMaxOutcomeBytes the limit that always fits, named when DynamoDB refuses a large item
     */
    public RecordOperations(DynamoDbCalls client, String table, ItemCodec codec, Requests requests, Clock clock,
            int defaultMaxOutcomeBytes) {
        this.client = client;
        this.table = table;
        this.codec = codec;
        this.requests = requests;
        this.clock = clock;
        this.defaultMaxOutcomeBytes = defaultMaxOutcomeBytes;
    }

    /**
     * The fenced completion. When the condition fails, the returned old item tells an
     * idempotent retry (already COMPLETED under this token) from a lost lease.
     *
     * @param key the key
     * @param token the caller's token
     * @param outcome the outcome
     * @param ttlMillis the completed record's life from now
     * @return whether the token was current (or the record already completed by it)
     */
    public CompletableFuture<Boolean> complete(IdempotencyKey key, long token, byte[] outcome, long ttlMillis) {
        long now = clock.millis();
        return client.updateItem(requests.complete(key, token, outcome, now, now + ttlMillis)).handle((r, failure) -> {
            if (failure == null) {
                return true;
            }
            Throwable e = DynamoDbCalls.cause(failure);
            if (e instanceof ConditionalCheckFailedException) {
                ConditionalCheckFailedException c = (ConditionalCheckFailedException) e;
                if (!c.hasItem() || c.item().isEmpty()) {
                    return false;
                }
                Map<String, AttributeValue> old = c.item();
                return codec.expiresAtMillis(key, old) > now && codec.state(key, old) == RecordState.COMPLETED
                        && codec.fencingToken(key, old) == token;
            }
            throw tooLargeOr("complete", "outcome", key, outcome.length, e);
        });
    }

    /**
     * The fenced release.
     *
     * @param key the key
     * @param token the caller's token
     * @return whether the token was current
     */
    public CompletableFuture<Boolean> release(IdempotencyKey key, long token) {
        return fenced("release", key, client.updateItem(requests.release(key, token, clock.millis())));
    }

    /**
     * The fenced replacement of the journal.
     *
     * @param key the key
     * @param token the caller's token
     * @param journal the whole new journal
     * @return whether the token was current on an IN_PROGRESS record
     */
    public CompletableFuture<Boolean> checkpoint(IdempotencyKey key, long token, byte[] journal) {
        return client.updateItem(requests.checkpoint(key, token, journal, clock.millis())).handle((r, failure) -> {
            if (failure == null) {
                return true;
            }
            Throwable e = DynamoDbCalls.cause(failure);
            if (e instanceof ConditionalCheckFailedException) {
                return false;
            }
            throw tooLargeOr("checkpoint", "step journal", key, journal.length, e);
        });
    }

    /**
     * The fenced lease extension. Only when the new deadline passes the record's expiry (a
     * lease longer than the TTL) does a second conditional write move the expiry too, since
     * an update expression cannot take a maximum.
     *
     * @param key the key
     * @param token the caller's token
     * @param leaseMillis the new lease from now
     * @return the new deadline, or empty if the token is not current
     */
    public CompletableFuture<Optional<Instant>> extendLease(IdempotencyKey key, long token, long leaseMillis) {
        long now = clock.millis();
        return extendRound(key, token, now, now + leaseMillis, 0);
    }

    private CompletableFuture<Optional<Instant>> extendRound(IdempotencyKey key, long token, long now,
            long leaseUntil, int round) {
        if (round >= MAX_ROUNDS) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("extendLease of " + key
                    + " in DynamoDB table '" + table + "' kept racing with other writers for " + MAX_ROUNDS
                    + " rounds", null, true));
        }
        Optional<Instant> extended = Optional.of(Instant.ofEpochMilli(leaseUntil));
        return client.updateItem(requests.extend(key, token, now, leaseUntil)).handle((r, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(extended);
            }
            Throwable e = DynamoDbCalls.cause(failure);
            if (!(e instanceof ConditionalCheckFailedException)) {
                throw rethrown("extendLease", key, e);
            }
            ConditionalCheckFailedException c = (ConditionalCheckFailedException) e;
            Map<String, AttributeValue> old = c.hasItem() ? c.item() : null;
            if (old == null || old.isEmpty() || codec.expiresAtMillis(key, old) <= now
                    || codec.state(key, old) != RecordState.IN_PROGRESS || codec.fencingToken(key, old) != token) {
                return CompletableFuture.completedFuture(Optional.<Instant>empty());
            }
            return fenced("extendLease", key, client.updateItem(requests.extendPastExpiry(key, token, now,
                    leaseUntil))).thenCompose(moved -> moved ? CompletableFuture.completedFuture(extended)
                            // Another extension by the same holder moved the expiry; the first form may fit now.
                            : extendRound(key, token, now, leaseUntil, round + 1));
        }).thenCompose(f -> f);
    }

    /**
     * The record, by a strongly consistent {@code GetItem}; an expired item that TTL has not
     * deleted yet is absent.
     *
     * @param key the key
     * @return the record, if any
     */
    public CompletableFuture<Optional<StoredRecord>> find(IdempotencyKey key) {
        return client.getItem(requests.get(key)).handle((resp, failure) -> {
            if (failure != null) {
                throw rethrown("find", key, DynamoDbCalls.cause(failure));
            }
            long now = clock.millis();
            if (!resp.hasItem() || resp.item().isEmpty() || codec.expiresAtMillis(key, resp.item()) <= now) {
                return Optional.empty();
            }
            return Optional.of(codec.toRecord(key, resp.item(), now));
        });
    }

    private CompletableFuture<Boolean> fenced(String operation, IdempotencyKey key, CompletableFuture<?> write) {
        return write.handle((r, failure) -> {
            if (failure == null) {
                return true;
            }
            Throwable e = DynamoDbCalls.cause(failure);
            if (e instanceof ConditionalCheckFailedException) {
                return false;
            }
            throw rethrown(operation, key, e);
        });
    }

    private RuntimeException rethrown(String operation, IdempotencyKey key, Throwable e) {
        if (e instanceof SdkException) {
            return Failures.translate(operation, table, key, (SdkException) e, client.onCallerThread());
        }
        return e instanceof RuntimeException ? (RuntimeException) e : new CompletionException(e);
    }

    // Not retryable, and typed as a store failure so the engine still hands the work's result
    // to its caller (Result.stored() == false).
    private RuntimeException tooLargeOr(String operation, String what, IdempotencyKey key, int length,
            Throwable e) {
        if (e instanceof SdkException && Failures.isItemTooLarge((SdkException) e)) {
            return new StoreUnavailableException("DynamoDB rejected the " + what + " of " + key + " (" + length
                    + " bytes): the record would exceed the 400 KB item limit; nothing was written. Keep"
                    + " maxOutcomeBytes at its default (" + defaultMaxOutcomeBytes + ") to have such"
                    + " " + what + "s refused up front", e, false);
        }
        return rethrown(operation, key, e);
    }
}
