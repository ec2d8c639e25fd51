package dev.idem.store.dynamodb.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.RecordState;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Builds the store's requests: one conditional write (or consistent read) per operation,
 * with the condition and update expressions written out here. Expression names and values
 * are taken from one table of placeholders, keeping only those an expression uses
 * (DynamoDB rejects unused ones). Not part of the API.
 */
public final class Requests {
    private static final Pattern PLACEHOLDER = Pattern.compile("[#:][A-Za-z]+");
    private static final Map<String, String> NAMES = Map.ofEntries(
            Map.entry("#id", ItemCodec.ID), Map.entry("#st", ItemCodec.STATE), Map.entry("#fp", ItemCodec.FINGERPRINT),
            Map.entry("#tok", ItemCodec.TOKEN), Map.entry("#att", ItemCodec.ATTEMPT), Map.entry("#lease", ItemCodec.LEASE),
            Map.entry("#exp", ItemCodec.EXPIRES), Map.entry("#ttl", ItemCodec.TTL), Map.entry("#out", ItemCodec.OUTCOME),
            Map.entry("#cat", ItemCodec.CREATED), Map.entry("#jnl", ItemCodec.JOURNAL));
    // A lapsed lease of the same request, or a released key: the record may be claimed.
    private static final String FREED = "#exp > :now AND (#st = :released OR (#st = :inProgress AND #lease <= :now))";
    private static final String IN_PROGRESS_WITH_TOKEN = "#tok = :tok AND #st = :inProgress AND #exp > :now";
    private static final String CLAIM_SET = "SET #st = :inProgress, #fp = :fp, #tok = :tok, #lease = :lease,"
            + " #exp = :exp, #ttl = :ttl, #att = #att + :one, #cat = if_not_exists(#cat, :now)";

    // Every request's expressions are constants, so the placeholders each one uses are
    // found once here, not by a regex per request.
    private static final Shape CLAIM_BY_SAME_REQUEST = new Shape(
            CLAIM_SET.replace("#att + :one", "if_not_exists(#att, :zero) + :one") + " REMOVE #out",
            "attribute_not_exists(#id) OR (#fp = :fp AND " + FREED + ")");
    private static final Shape CLAIM_RELEASED_BY_ANOTHER = new Shape(CLAIM_SET + " REMOVE #out, #jnl",
            "#st = :released AND #exp > :now");
    private static final Shape CLAIM_EXPIRED = new Shape("", "attribute_not_exists(#id) OR #exp <= :now");
    private static final Shape COMPLETE = new Shape(
            "SET #st = :completed, #out = :out, #exp = :exp, #ttl = :ttl REMOVE #lease, #jnl", IN_PROGRESS_WITH_TOKEN);
    private static final Shape RELEASE = new Shape("SET #st = :released REMOVE #lease",
            "#tok = :tok AND (#st = :inProgress OR #st = :released) AND #exp > :now");
    private static final Shape CHECKPOINT = new Shape("SET #jnl = :jnl", IN_PROGRESS_WITH_TOKEN);
    private static final Shape EXTEND = new Shape("SET #lease = :lease", IN_PROGRESS_WITH_TOKEN + " AND #exp >= :lease");
    private static final Shape EXTEND_PAST_EXPIRY = new Shape("SET #lease = :lease, #exp = :lease, #ttl = :ttl",
            IN_PROGRESS_WITH_TOKEN + " AND #exp < :lease");

    /** An update and a condition expression with the names and value placeholders they use. */
    private static final class Shape {
        final String update;
        final String condition;
        final Map<String, String> names;
        final String[] values;

        Shape(String update, String condition) {
            this.update = update;
            this.condition = condition;
            Map<String, String> n = new HashMap<>();
            Set<String> v = new LinkedHashSet<>();
            Matcher m = PLACEHOLDER.matcher(update + " " + condition);
            while (m.find()) {
                String p = m.group();
                if (p.startsWith("#")) {
                    n.put(p, NAMES.get(p));
                } else {
                    v.add(p);
                }
            }
            this.names = Map.copyOf(n);
            this.values = v.toArray(new String[0]);
        }

        Map<String, AttributeValue> values(Map<String, AttributeValue> all) {
            Map<String, AttributeValue> used = new HashMap<>(values.length * 2);
            for (String p : values) {
                used.put(p, all.get(p));
            }
            return used;
        }
    }

    private final String table;
    private final ItemCodec codec;

    /**
     * Requests against {@code table}.
     *
     * @param table the table name
     * @param codec the item codec
     */
    public Requests(String table, ItemCodec codec) {
        this.table = table;
        this.codec = codec;
    }

    /**
     * The claim of an absent key, a released key of the same request, or a lapsed lease of
     * the same request: the attempt counter, the creation time and the journal carry over
     * (a new item gets attempt 1 and no journal). Returns the old item.
     *
     * @param key the key
     * @param v the claim's values ({@link #claimValues})
     * @return the request
     */
    public UpdateItemRequest claimBySameRequest(IdempotencyKey key, Map<String, AttributeValue> v) {
        return update(key, CLAIM_BY_SAME_REQUEST, v, ReturnValue.ALL_OLD);
    }

    /**
     * The claim of a key released by another request: next attempt, creation time kept,
     * journal dropped (it belongs to the other request). Returns the old item.
     *
     * @param key the key
     * @param v the claim's values ({@link #claimValues})
     * @return the request
     */
    public UpdateItemRequest claimReleasedByAnother(IdempotencyKey key, Map<String, AttributeValue> v) {
        return update(key, CLAIM_RELEASED_BY_ANOTHER, v, ReturnValue.ALL_OLD);
    }

    /**
     * The claim of an expired item that TTL has not deleted yet: a new record (attempt 1).
     *
     * @param key the key
     * @param v the claim's values ({@link #claimValues})
     * @return the request
     */
    public PutItemRequest claimExpired(IdempotencyKey key, Map<String, AttributeValue> v) {
        Map<String, AttributeValue> item = new HashMap<>(codec.primaryKey(key));
        item.put(ItemCodec.STATE, v.get(":inProgress"));
        item.put(ItemCodec.FINGERPRINT, v.get(":fp"));
        item.put(ItemCodec.TOKEN, v.get(":tok"));
        item.put(ItemCodec.ATTEMPT, v.get(":one"));
        item.put(ItemCodec.LEASE, v.get(":lease"));
        item.put(ItemCodec.EXPIRES, v.get(":exp"));
        item.put(ItemCodec.TTL, v.get(":ttl"));
        item.put(ItemCodec.CREATED, v.get(":now"));
        return PutItemRequest.builder().tableName(table).item(item).conditionExpression(CLAIM_EXPIRED.condition)
                .expressionAttributeNames(CLAIM_EXPIRED.names).expressionAttributeValues(CLAIM_EXPIRED.values(v))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD).build();
    }

    /**
     * The values every claim request draws from.
     *
     * @param fp the fingerprint
     * @param token the token
     * @param now the store's clock
     * @param leaseUntil the lease deadline
     * @param expires the expiry
     * @return the values by placeholder
     */
    public static Map<String, AttributeValue> claimValues(byte[] fp, long token, long now, long leaseUntil,
            long expires) {
        Map<String, AttributeValue> v = new HashMap<>();
        v.put(":inProgress", ItemCodec.state(RecordState.IN_PROGRESS));
        v.put(":released", ItemCodec.state(RecordState.RELEASED));
        v.put(":fp", ItemCodec.bytes(fp));
        v.put(":tok", ItemCodec.num(token));
        v.put(":lease", ItemCodec.num(leaseUntil));
        v.put(":exp", ItemCodec.num(expires));
        v.put(":ttl", ItemCodec.num(ItemCodec.ttlSeconds(expires)));
        v.put(":now", ItemCodec.num(now));
        v.put(":zero", ItemCodec.num(0));
        v.put(":one", ItemCodec.num(1));
        return v;
    }

    /**
     * Fenced completion; drops the lease and the journal. On a failed condition the old item
     * tells an idempotent repeat from a lost lease.
     *
     * @param key the key
     * @param token the caller's token
     * @param outcome the outcome
     * @param now the store's clock
     * @param expires the completed record's expiry
     * @return the request
     */
    public UpdateItemRequest complete(IdempotencyKey key, long token, byte[] outcome, long now, long expires) {
        Map<String, AttributeValue> v = fenceValues(token, now);
        v.put(":completed", ItemCodec.state(RecordState.COMPLETED));
        v.put(":out", ItemCodec.bytes(outcome));
        v.put(":exp", ItemCodec.num(expires));
        v.put(":ttl", ItemCodec.num(ItemCodec.ttlSeconds(expires)));
        return update(key, COMPLETE, v, ReturnValue.NONE);
    }

    /**
     * Fenced release; the journal stays. A repeat by the same token matches again.
     *
     * @param key the key
     * @param token the caller's token
     * @param now the store's clock
     * @return the request
     */
    public UpdateItemRequest release(IdempotencyKey key, long token, long now) {
        Map<String, AttributeValue> v = fenceValues(token, now);
        v.put(":released", ItemCodec.state(RecordState.RELEASED));
        return update(key, RELEASE, v, ReturnValue.NONE);
    }

    /**
     * Fenced replacement of the journal; a repeat with the same bytes matches again.
     *
     * @param key the key
     * @param token the caller's token
     * @param journal the new journal
     * @param now the store's clock
     * @return the request
     */
    public UpdateItemRequest checkpoint(IdempotencyKey key, long token, byte[] journal, long now) {
        Map<String, AttributeValue> v = fenceValues(token, now);
        v.put(":jnl", ItemCodec.bytes(journal));
        return update(key, CHECKPOINT, v, ReturnValue.NONE);
    }

    /**
     * Fenced lease extension within the record's expiry.
     *
     * @param key the key
     * @param token the caller's token
     * @param now the store's clock
     * @param leaseUntil the new deadline
     * @return the request
     */
    public UpdateItemRequest extend(IdempotencyKey key, long token, long now, long leaseUntil) {
        Map<String, AttributeValue> v = fenceValues(token, now);
        v.put(":lease", ItemCodec.num(leaseUntil));
        return update(key, EXTEND, v, ReturnValue.NONE);
    }

    /**
     * Fenced lease extension past the record's expiry, which moves with it.
     *
     * @param key the key
     * @param token the caller's token
     * @param now the store's clock
     * @param leaseUntil the new deadline
     * @return the request
     */
    public UpdateItemRequest extendPastExpiry(IdempotencyKey key, long token, long now, long leaseUntil) {
        Map<String, AttributeValue> v = fenceValues(token, now);
        v.put(":lease", ItemCodec.num(leaseUntil));
        v.put(":ttl", ItemCodec.num(ItemCodec.ttlSeconds(leaseUntil)));
        return update(key, EXTEND_PAST_EXPIRY, v, ReturnValue.NONE);
    }

    /**
     * A strongly consistent read of the item.
     *
     * @param key the key
     * @return the request
     */
    public GetItemRequest get(IdempotencyKey key) {
        return GetItemRequest.builder().tableName(table).key(codec.primaryKey(key)).consistentRead(true).build();
    }

    private static Map<String, AttributeValue> fenceValues(long token, long now) {
        Map<String, AttributeValue> v = new HashMap<>();
        v.put(":inProgress", ItemCodec.state(RecordState.IN_PROGRESS));
        v.put(":tok", ItemCodec.num(token));
        v.put(":now", ItemCodec.num(now));
        return v;
    }

    private UpdateItemRequest update(IdempotencyKey key, Shape shape, Map<String, AttributeValue> v,
            ReturnValue returnValue) {
        return UpdateItemRequest.builder().tableName(table).key(codec.primaryKey(key))
                .updateExpression(shape.update).conditionExpression(shape.condition)
                .expressionAttributeNames(shape.names)
                .expressionAttributeValues(shape.values(v))
                .returnValues(returnValue)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD).build();
    }
}
