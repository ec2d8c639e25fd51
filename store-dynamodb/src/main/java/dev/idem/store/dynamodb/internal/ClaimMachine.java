package dev.idem.store.dynamodb.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

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

    private final DynamoDbClient client;
    private final String table;
    private final ItemCodec codec;
    private final Requests requests;

    /**
     * A claim machine on {@code table}.
     *
     * @param client the client
     * @param table the table name
     * @param codec the codec
     * @param requests the request builder
     */
    public ClaimMachine(DynamoDbClient client, String table, ItemCodec codec, Requests requests) {
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
     * @return the claim's result
     * @throws StoreUnavailableException if DynamoDB fails, or rivals kept winning for too many rounds
     */
    public ClaimResult claim(IdempotencyKey key, byte[] fp, long token, long now, long leaseUntil, long expires) {
        Map<String, AttributeValue> v = Requests.claimValues(fp, token, now, leaseUntil, expires);
        Map<String, AttributeValue> existing = null;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            Move move = existing == null ? Move.SAME_REQUEST : next(key, existing, fp, token, now);
            if (move == null) {
                StoredRecord current = codec.toRecord(key, existing, now);
                if (current.fencingToken() == token && current.state() == RecordState.IN_PROGRESS) {
                    // Our own write landed on an earlier try whose reply was lost (SDK retry):
                    // tokens are unique per claim, so this record is ours.
                    return current.attempt() == 1 ? ClaimResult.acquired(current, Instant.ofEpochMilli(now))
                            : ClaimResult.takenOver(current, Instant.ofEpochMilli(now));
                }
                return ClaimResult.existing(current, Instant.ofEpochMilli(now));
            }
            try {
                Map<String, AttributeValue> old;
                switch (move) {
                    case SAME_REQUEST: {
                        UpdateItemResponse r = client.updateItem(requests.claimBySameRequest(key, v));
                        old = r.hasAttributes() ? r.attributes() : Map.of();
                        break;
                    }
                    case OTHER_REQUEST: {
                        UpdateItemResponse r = client.updateItem(requests.claimReleasedByAnother(key, v));
                        old = r.hasAttributes() ? r.attributes() : Map.of();
                        break;
                    }
                    default:
                        client.putItem(requests.claimExpired(key, v));
                        old = Map.of();
                        break;
                }
                return won(key, fp, token, now, leaseUntil, expires, move, old);
            } catch (ConditionalCheckFailedException e) {
                // The item it met decides the next round; gone meanwhile (TTL, a rival): start over.
                existing = e.hasItem() && !e.item().isEmpty() ? e.item() : null;
            } catch (SdkException e) {
                throw Failures.translate("claim", table, key, e);
            }
        }
        throw new StoreUnavailableException("claim of " + key + " in DynamoDB table '" + table
                + "' kept racing with other writers for " + MAX_ROUNDS + " rounds", null, true);
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
