package dev.idem.store.dynamodb.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.dynamodb.TableLayout;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Maps idempotency keys to DynamoDB primary keys and items to {@link StoredRecord}s for one
 * {@link TableLayout}. Not part of the API.
 */
public final class ItemCodec {
    /** DynamoDB's limit on a partition key value, in UTF-8 bytes. */
    static final int PARTITION_KEY_LIMIT = 2048;
    /** DynamoDB's limit on a sort key value, in UTF-8 bytes. */
    static final int SORT_KEY_LIMIT = 1024;

    private final TableLayout layout;
    private final String table;

    /** A codec for {@code layout} in {@code table} (the table name only appears in error messages). */
    public ItemCodec(TableLayout layout, String table) {
        this.layout = layout;
        this.table = table;
    }

    /**
     * The encoded key: each of scope and operation is prefixed by its length, so no choice
     * of delimiters inside them can make two keys collide. Encodings longer than DynamoDB
     * allows for the key attribute are replaced by a SHA-256 digest; raw encodings start
     * with a digit and digests with '#', so the two forms never meet.
     */
    public String encodedId(IdempotencyKey key) {
        String raw = key.scope().length() + ":" + key.scope() + ":" + key.operation().length() + ":"
                + key.operation() + ":" + key.key();
        int limit = layout.composite() ? SORT_KEY_LIMIT : PARTITION_KEY_LIMIT;
        byte[] utf8 = raw.getBytes(StandardCharsets.UTF_8);
        if (utf8.length <= limit) {
            return raw;
        }
        return "#sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(utf8));
    }

    /** The primary key of {@code key}'s item. */
    public Map<String, AttributeValue> primaryKey(IdempotencyKey key) {
        Map<String, AttributeValue> pk = new HashMap<>(4);
        if (layout.composite()) {
            pk.put(layout.partitionKey(), AttributeValue.fromS(layout.partitionKeyValue().orElseThrow()));
            pk.put(layout.sortKey().orElseThrow(), AttributeValue.fromS(encodedId(key)));
        } else {
            pk.put(layout.partitionKey(), AttributeValue.fromS(encodedId(key)));
        }
        return pk;
    }

    /** Epoch seconds for the TTL attribute, rounded up so DynamoDB never deletes a record early. */
    public static long ttlSeconds(long expiresAtMillis) {
        return Math.floorDiv(expiresAtMillis, 1000L) + (Math.floorMod(expiresAtMillis, 1000L) == 0 ? 0 : 1);
    }

    /** A number attribute. */
    public static AttributeValue num(long n) {
        return AttributeValue.fromN(Long.toString(n));
    }

    /** A string attribute holding a state's one-letter code. */
    public static AttributeValue state(RecordState s) {
        return AttributeValue.fromS(String.valueOf(s.code()));
    }

    /** A binary attribute (the SDK copies the array, so callers keep ownership). */
    public static AttributeValue bytes(byte[] b) {
        return AttributeValue.fromB(SdkBytes.fromByteArray(b));
    }

    /** The exact expiry of a raw item, in epoch milliseconds. */
    public long expiresAtMillis(IdempotencyKey key, Map<String, AttributeValue> item) {
        return number(key, item, layout.expiresAt());
    }

    /** The raw state of an item. */
    public RecordState state(IdempotencyKey key, Map<String, AttributeValue> item) {
        AttributeValue v = item.get(layout.state());
        if (v == null || v.s() == null || v.s().length() != 1) {
            throw corrupt(key, "attribute '" + layout.state() + "' is missing or not a one-letter string");
        }
        try {
            return RecordState.fromCode(v.s().charAt(0));
        } catch (IllegalArgumentException e) {
            throw corrupt(key, e.getMessage());
        }
    }

    /** The fencing token of a raw item. */
    public long fencingToken(IdempotencyKey key, Map<String, AttributeValue> item) {
        return number(key, item, layout.fencingToken());
    }

    /** The attempt of a raw item. */
    public int attempt(IdempotencyKey key, Map<String, AttributeValue> item) {
        long a = number(key, item, layout.attempt());
        if (a < 1 || a > Integer.MAX_VALUE) {
            throw corrupt(key, "attempt " + a + " is out of range");
        }
        return (int) a;
    }

    /** The fingerprint of a raw item. */
    public byte[] fingerprint(IdempotencyKey key, Map<String, AttributeValue> item) {
        return binary(key, item, layout.fingerprint());
    }

    /**
     * Parses a full item into a record.
     *
     * @throws StoreUnavailableException (not retryable) if an attribute is missing or malformed:
     *     a record that cannot be read must never pass for an absent one
     */
    public StoredRecord toRecord(IdempotencyKey key, Map<String, AttributeValue> item) {
        RecordState st = state(key, item);
        Instant lease = null;
        if (st == RecordState.IN_PROGRESS) {
            lease = Instant.ofEpochMilli(number(key, item, layout.leaseUntil()));
        }
        byte[] outcome = st == RecordState.COMPLETED ? binary(key, item, layout.outcome()) : null;
        try {
            return new StoredRecord(key, st, fingerprint(key, item), fencingToken(key, item), attempt(key, item),
                    lease, Instant.ofEpochMilli(expiresAtMillis(key, item)), outcome);
        } catch (IllegalArgumentException e) {
            throw corrupt(key, e.getMessage());
        }
    }

    private long number(IdempotencyKey key, Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        if (v == null || v.n() == null) {
            throw corrupt(key, "number attribute '" + name + "' is missing");
        }
        try {
            return Long.parseLong(v.n());
        } catch (NumberFormatException e) {
            throw corrupt(key, "attribute '" + name + "' is not a 64-bit integer: " + v.n());
        }
    }

    private byte[] binary(IdempotencyKey key, Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        if (v == null || v.b() == null) {
            throw corrupt(key, "binary attribute '" + name + "' is missing");
        }
        return v.b().asByteArray();
    }

    private StoreUnavailableException corrupt(IdempotencyKey key, String why) {
        return new StoreUnavailableException(
                "DynamoDB table '" + table + "' holds an unreadable record for " + key + ": " + why, null, false);
    }

    private static byte[] sha256(byte[] in) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(in);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
