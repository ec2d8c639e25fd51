package dev.idem.store.dynamodb.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The claim as a small state machine over conditional writes. Each round sends the one
 * write that fits what is known of the item, optimistically the common one first:
 * <ul>
 *   <li>unknown, or freed for the same request (released, or a lapsed lease): an update
 *       that keeps the attempt counter, creation time and journal ({@link Requests#claimBySameRequest});</li>
 *   <li>released by another request: an update that drops the journal ({@link Requests#claimReleasedByAnother});</li>
 *   <li>expired but not yet deleted by TTL: a put of a new record ({@link Requests#claimExpired}).</li>
 * </ul>
 * A write whose condition fails returns the item it met ({@code ALL_OLD}), which decides
 * the next round or ends the claim as EXISTING. So a claim is one request in the common
 * cases and two when the item is expired or another request's release; a rival's write
 * between rounds costs one more round, up to a bound. Not part of the API.
 */
public final class ClaimMachine {
    private static final int MAX_ROUNDS = 8;

    private final DynamoDbCalls client;
    private final String table;
    private final ItemCodec codec;
    private final Requests requests;

    /**
     * A claim machine on {@code table}.
     *
     * @param client the client's calls
     * @param table the table name
     * @param codec the codec
     * @param requests the request builder
     */
    public ClaimMachine(DynamoDbCalls client, String table, ItemCodec codec, Requests requests) {
        this.client = client;
        this.table = table;
        this.codec = codec;
        this.requests = requests;
    }

    private enum Move { SAME_REQUEST, OTHER_REQUEST, EXPIRED }

    /**
     * Claims {@code key}.
     *
     * @param key the key
     * @param fp the fingerprint
     * @param token the caller's token
     * @param now the store's clock
     * @param leaseUntil the lease deadline
     * @param expires the record's expiry
     * @return the claim's result; fails with StoreUnavailableException if DynamoDB fails, or rivals kept
     *     winning for too many rounds
     */
    public CompletableFuture<ClaimResult> claim(IdempotencyKey key, byte[] fp, long token, long now, long leaseUntil,
            long expires) {
        Map<String, AttributeValue> v = Requests.claimValues(fp, token, now, leaseUntil, expires);
        return round(key, fp, token, now, leaseUntil, expires, v, null, 0);
    }

    // One round: the write that fits what is known of the item, then the next round on a failed condition.
    private CompletableFuture<ClaimResult> round(IdempotencyKey key, byte[] fp, long token, long now, long leaseUntil,
            long expires, Map<String, AttributeValue> v, Map<String, AttributeValue> existing, int round) {
        if (round >= MAX_ROUNDS) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("claim of " + key
                    + " in DynamoDB table '" + table + "' kept racing with other writers for " + MAX_ROUNDS
                    + " rounds", null, true));
        }
        Move move;
        try {
            move = existing == null ? Move.SAME_REQUEST : next(key, existing, fp, token, now);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (move == null) {
            StoredRecord current = codec.toRecord(key, existing, now);
            if (current.fencingToken() == token && current.state() == RecordState.IN_PROGRESS) {
                // Our own write landed on an earlier try whose reply was lost (SDK retry):
                // tokens are unique per claim, so this record is ours.
                return CompletableFuture.completedFuture(current.attempt() == 1
                        ? ClaimResult.acquired(current, Instant.ofEpochMilli(now))
                        : ClaimResult.takenOver(current, Instant.ofEpochMilli(now)));
            }
            return CompletableFuture.completedFuture(ClaimResult.existing(current, Instant.ofEpochMilli(now)));
        }
        CompletableFuture<Map<String, AttributeValue>> write;
        switch (move) {
            case SAME_REQUEST:
                write = client.updateItem(requests.claimBySameRequest(key, v))
                        .thenApply(r -> r.hasAttributes() ? r.attributes() : Map.of());
                break;
            case OTHER_REQUEST:
                write = client.updateItem(requests.claimReleasedByAnother(key, v))
                        .thenApply(r -> r.hasAttributes() ? r.attributes() : Map.of());
                break;
            default:
                write = client.putItem(requests.claimExpired(key, v)).thenApply(r -> Map.of());
                break;
        }
        return write.handle((old, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(won(key, fp, token, now, leaseUntil, expires, move, old));
            }
            Throwable e = DynamoDbCalls.cause(failure);
            if (e instanceof ConditionalCheckFailedException) {
                // The item it met decides the next round; gone meanwhile (TTL, a rival): start over.
                ConditionalCheckFailedException c = (ConditionalCheckFailedException) e;
                Map<String, AttributeValue> met = c.hasItem() && !c.item().isEmpty() ? c.item() : null;
                return round(key, fp, token, now, leaseUntil, expires, v, met, round + 1);
            }
            if (e instanceof SdkException) {
                return CompletableFuture.<ClaimResult>failedFuture(
                        Failures.translate("claim", table, key, (SdkException) e, client.onCallerThread()));
            }
            return CompletableFuture.<ClaimResult>failedFuture(e);
        }).thenCompose(f -> f);
    }

    // The write that fits the item, or null when no write can win (the claim ends as EXISTING).
    private Move next(IdempotencyKey key, Map<String, AttributeValue> item, byte[] fp, long token, long now) {
        if (codec.expiresAtMillis(key, item) <= now) {
            return Move.EXPIRED;
        }
        StoredRecord current = codec.toRecord(key, item, now);
        boolean sameRequest = current.hasFingerprint(fp);
        if (current.state() == RecordState.RELEASED) {
            return sameRequest ? Move.SAME_REQUEST : Move.OTHER_REQUEST;
        }
        if (current.state() == RecordState.IN_PROGRESS && sameRequest && current.fencingToken() != token
                && !Instant.ofEpochMilli(now).isBefore(current.leaseExpiresAt())) {
            return Move.SAME_REQUEST;
        }
        return null;
    }

    private ClaimResult won(IdempotencyKey key, byte[] fp, long token, long now, long leaseUntil, long expires,
            Move move, Map<String, AttributeValue> old) {
        Instant at = Instant.ofEpochMilli(now);
        if (old.isEmpty()) {
            return ClaimResult.acquired(mine(key, fp, token, 1, now, leaseUntil, expires, null), at);
        }
        int attempt = codec.attempt(key, old) + 1;
        long created = codec.createdAt(key, old, now);
        byte[] journal = move == Move.SAME_REQUEST ? codec.journal(key, old) : null;
        StoredRecord mine = mine(key, fp, token, attempt, created, leaseUntil, expires, journal);
        return codec.state(key, old) == RecordState.IN_PROGRESS ? ClaimResult.takenOver(mine, at)
                : ClaimResult.acquired(mine, at);
    }

    private static StoredRecord mine(IdempotencyKey key, byte[] fp, long token, int attempt, long created,
            long leaseUntil, long expires, byte[] journal) {
        return new StoredRecord(key, RecordState.IN_PROGRESS, Arrays.copyOf(fp, fp.length), token, attempt,
                Instant.ofEpochMilli(created), Instant.ofEpochMilli(leaseUntil), Instant.ofEpochMilli(expires), null,
                journal);
    }
}
