package dev.idem.store.dynamodb.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The item layout (attribute names, key encoding) and the mapping of items to
 * {@link StoredRecord}s. Not part of the API.
 */
public final class ItemCodec {
    /** Partition key (S): the encoded idempotency key. */
    public static final String ID = "pk";
    /** State (S), one letter. */
    public static final String STATE = "st";
    /** Request fingerprint (B). */
    public static final String FINGERPRINT = "fp";
    /** Fencing token of the latest claim (N). */
    public static final String TOKEN = "tok";
    /** Attempt number (N). */
    public static final String ATTEMPT = "att";
    /** Lease deadline, epoch ms (N), only while IN_PROGRESS. */
    public static final String LEASE = "lease";
    /** Exact expiry, epoch ms (N), checked by every condition and read. */
    public static final String EXPIRES = "exp";
    /** Expiry in epoch seconds rounded up (N), for DynamoDB TTL. */
    public static final String TTL = "ttl";
    /** Outcome (B), only when COMPLETED. */
    public static final String OUTCOME = "out";
    /** Creation time, epoch ms (N): the first claim of the record's current life. */
    public static final String CREATED = "cat";
    /** Step journal (B), only while not COMPLETED. */
    public static final String JOURNAL = "jnl";

    /** DynamoDB's limit on a partition key value, in UTF-8 bytes. */
    static final int PARTITION_KEY_LIMIT = 2048;

    private final String table;

    /**
     * A codec for {@code table} (its name only appears in error messages).
     *
     * @param table the table name
     */
    public ItemCodec(String table) {
        this.table = table;
    }

    /**
     * The encoded key: each of scope and operation is prefixed by its length, so no choice
     * of delimiters inside them can make two keys collide. Encodings longer than DynamoDB
     * allows for a partition key are replaced by a SHA-256 digest; raw encodings start with
     * a digit and digests with '#', so the two forms never meet.
     *
     * @param key the key
     * @return the partition key value
     */
    public String encodedId(IdempotencyKey key) {
        String raw = key.scope().length() + ":" + key.scope() + ":" + key.operation().length() + ":"
                + key.operation() + ":" + key.key();
        byte[] utf8 = raw.getBytes(StandardCharsets.UTF_8);
        if (utf8.length <= PARTITION_KEY_LIMIT) {
            return raw;
        }
        return "#sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(utf8));
    }

    /**
     * The primary key of {@code key}'s item.
     *
     * @param key the key
     * @return the primary key attributes
     */
    public Map<String, AttributeValue> primaryKey(IdempotencyKey key) {
        return Map.of(ID, AttributeValue.fromS(encodedId(key)));
    }

    /**
     * Epoch seconds for the TTL attribute, rounded up so DynamoDB never deletes a record early.
     *
     * @param expiresAtMillis the exact expiry
     * @return epoch seconds
     */
    public static long ttlSeconds(long expiresAtMillis) {
        return Math.floorDiv(expiresAtMillis, 1000L) + (Math.floorMod(expiresAtMillis, 1000L) == 0 ? 0 : 1);
    }

    /**
     * A number attribute.
     *
     * @param n the number
     * @return the attribute
     */
    public static AttributeValue num(long n) {
        return AttributeValue.fromN(Long.toString(n));
    }

    /**
     * A string attribute holding a state's one-letter code.
     *
     * @param s the state
     * @return the attribute
     */
    public static AttributeValue state(RecordState s) {
        return AttributeValue.fromS(String.valueOf(s.code()));
    }

    /**
     * A binary attribute (the SDK copies the array, so callers keep ownership).
     *
     * @param b the bytes
     * @return the attribute
     */
    public static AttributeValue bytes(byte[] b) {
        return AttributeValue.fromB(SdkBytes.fromByteArray(b));
    }

    /**
     * The exact expiry of a raw item.
     *
     * @param key the key, for error messages
     * @param item the item
     * @return epoch milliseconds
     */
    public long expiresAtMillis(IdempotencyKey key, Map<String, AttributeValue> item) {
        return number(key, item, EXPIRES);
    }

    /**
     * The raw state of an item.
     *
     * @param key the key, for error messages
     * @param item the item
     * @return the state
     */
    public RecordState state(IdempotencyKey key, Map<String, AttributeValue> item) {
        AttributeValue v = item.get(STATE);
        if (v == null || v.s() == null || v.s().length() != 1) {
            throw corrupt(key, "attribute '" + STATE + "' is missing or not a one-letter string");
        }
        try {
            return RecordState.fromCode(v.s().charAt(0));
        } catch (IllegalArgumentException e) {
            throw corrupt(key, e.getMessage());
        }
    }

    /**
     * The fencing token of a raw item.
     *
     * @param key the key, for error messages
     * @param item the item
     * @return the token
     */
    public long fencingToken(IdempotencyKey key, Map<String, AttributeValue> item) {
        return number(key, item, TOKEN);
    }

    /**
     * The attempt of a raw item.
     *
     * @param key the key, for error messages
     * @param item the item
     * @return the attempt
     */
    public int attempt(IdempotencyKey key, Map<String, AttributeValue> item) {
        long a = number(key, item, ATTEMPT);
        if (a < 1 || a > Integer.MAX_VALUE) {
            throw corrupt(key, "attempt " + a + " is out of range");
        }
        return (int) a;
    }

    /**
     * The creation time of a raw item; an item written before the attribute existed has none
     * and reports {@code now}.
     *
     * @param key the key, for error messages
     * @param item the item
     * @param now the store's clock
     * @return epoch milliseconds
     */
    public long createdAt(IdempotencyKey key, Map<String, AttributeValue> item, long now) {
        return item.containsKey(CREATED) ? number(key, item, CREATED) : now;
    }

    /**
     * The step journal of a raw item, or null.
     *
     * @param key the key, for error messages
     * @param item the item
     * @return the journal
     */
    public byte[] journal(IdempotencyKey key, Map<String, AttributeValue> item) {
        return item.containsKey(JOURNAL) ? binary(key, item, JOURNAL) : null;
    }

    /**
     * Parses a full item into a record.
     *
     * @param key the key
     * @param item the item
     * @param now the store's clock, reported as the creation time of an item from before it was kept
     * @return the record
     * @throws StoreUnavailableException (not retryable) if an attribute is missing or malformed:
     *     a record that cannot be read must never pass for an absent one
     */
    public StoredRecord toRecord(IdempotencyKey key, Map<String, AttributeValue> item, long now) {
        RecordState st = state(key, item);
        Instant lease = st == RecordState.IN_PROGRESS ? Instant.ofEpochMilli(number(key, item, LEASE)) : null;
        byte[] outcome = st == RecordState.COMPLETED ? binary(key, item, OUTCOME) : null;
        byte[] journal = st == RecordState.COMPLETED ? null : journal(key, item);
        try {
            return new StoredRecord(key, st, binary(key, item, FINGERPRINT), fencingToken(key, item),
                    attempt(key, item), Instant.ofEpochMilli(createdAt(key, item, now)), lease,
                    Instant.ofEpochMilli(expiresAtMillis(key, item)), outcome, journal);
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
