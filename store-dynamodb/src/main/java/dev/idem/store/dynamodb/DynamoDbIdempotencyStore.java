package dev.idem.store.dynamodb;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.dynamodb.internal.Failures;
import dev.idem.store.dynamodb.internal.ItemCodec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * An {@link IdempotencyStore} on one DynamoDB table, through a {@link DynamoDbClient} the
 * caller owns. Every operation is a single conditional write (or a consistent read), so it
 * is atomic against every other process on the table; a claim that meets an existing
 * record learns that record, outcome included, from the failed write itself
 * ({@code ReturnValuesOnConditionCheckFailure=ALL_OLD}).
 *
 * <p><b>Clock.</b> DynamoDB conditions cannot read a server clock, so leases and expiry are
 * judged by this store's {@link Clock} (the JVM's UTC clock by default). All nodes sharing
 * the table need synchronized clocks, and the lease must be longer than the worst skew
 * between them; {@link StoreCapabilities#serverClock()} is false.
 *
 * <p><b>Expiry.</b> Each item carries its exact expiry in epoch milliseconds, checked by
 * every condition and read, and the same instant in epoch seconds (rounded up) for
 * DynamoDB TTL, which deletes lazily. {@link #purgeExpired(int)} deletes nothing and
 * returns 0: enable TTL on the table (see {@link DynamoDbTables}).
 *
 * <p><b>Size.</b> An item holds at most 400 KB. Outcomes are stored uncompressed; an outcome
 * over {@link #maxOutcomeBytes()} (by default {@value #DEFAULT_MAX_OUTCOME_BYTES} bytes,
 * which always fits together with the largest key, a fingerprint of up to
 * {@value #MAX_FINGERPRINT_BYTES} bytes and the longest attribute names) is rejected with an
 * {@link IllegalArgumentException} before anything is sent. A write DynamoDB still rejects
 * for its size (only possible with a raised limit) fails with a non-retryable
 * {@link StoreUnavailableException} that says so; nothing is written in either case.
 */
public final class DynamoDbIdempotencyStore implements IdempotencyStore {
    /** DynamoDB's item size limit, in bytes. */
    public static final int DYNAMODB_ITEM_LIMIT = 400 * 1024;
    /** Default and guaranteed-to-fit outcome limit: the item limit less 16 KiB for everything else. */
    public static final int DEFAULT_MAX_OUTCOME_BYTES = DYNAMODB_ITEM_LIMIT - 16 * 1024;
    /** Largest fingerprint a claim accepts (digests are 32 bytes; this leaves ample room). */
    public static final int MAX_FINGERPRINT_BYTES = 8 * 1024;

    private static final int MAX_ROUNDS = 8;

    private final DynamoDbClient client;
    private final boolean ownsClient;
    private final String table;
    private final TableLayout layout;
    private final Clock clock;
    private final int maxOutcomeBytes;
    private final ItemCodec codec;

    private DynamoDbIdempotencyStore(Builder b) {
        this.client = b.client;
        this.ownsClient = b.ownsClient;
        this.table = b.tableName;
        this.layout = b.layout;
        this.clock = b.clock;
        this.maxOutcomeBytes = b.maxOutcomeBytes;
        this.codec = new ItemCodec(layout, table);
    }

    /** A builder; {@link Builder#client} and {@link Builder#tableName} are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** The table this store writes to. */
    public String tableName() {
        return table;
    }

    /** The table layout this store uses. */
    public TableLayout layout() {
        return layout;
    }

    /** The largest outcome {@link #complete} accepts, in bytes. */
    public int maxOutcomeBytes() {
        return maxOutcomeBytes;
    }

    /**
     * One conditional {@code UpdateItem} that succeeds when the key is absent, RELEASED, or
     * IN_PROGRESS under a lapsed lease with the same fingerprint; the attempt counter is
     * carried across a release or takeover by the update expression itself. An expired
     * record that TTL has not deleted yet costs a second conditional write that replaces it
     * (attempt 1), because an update cannot reset the counter only when the record expired.
     */
    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(fingerprint, "fingerprint");
        if (fingerprint.length > MAX_FINGERPRINT_BYTES) {
            throw new IllegalArgumentException("fingerprint is " + fingerprint.length + " bytes; at most "
                    + MAX_FINGERPRINT_BYTES + " fit in a DynamoDB record");
        }
        long leaseMillis = positiveMillis("lease", lease);
        long ttlMillis = positiveMillis("ttl", ttl);
        long now = clock.millis();
        long leaseUntil = now + leaseMillis;
        long expires = Math.max(now + ttlMillis, leaseUntil);

        Map<String, AttributeValue> existing = null;
        for (int round = 0; round < MAX_ROUNDS; round++) {
            if (existing == null || isLive(key, existing, now)) {
                Outcome<Map<String, AttributeValue>> r = claimByUpdate(key, fingerprint, fencingToken, now, leaseUntil,
                        expires);
                if (r.ok) {
                    Map<String, AttributeValue> old = r.value;
                    if (old == null || old.isEmpty()) {
                        return ClaimResult.acquired(
                                inProgress(key, fingerprint, fencingToken, 1, leaseUntil, expires), instant(now));
                    }
                    int attempt = codec.attempt(key, old) + 1;
                    StoredRecord mine = inProgress(key, fingerprint, fencingToken, attempt, leaseUntil, expires);
                    return codec.state(key, old) == RecordState.IN_PROGRESS
                            ? ClaimResult.takenOver(mine, instant(now))
                            : ClaimResult.acquired(mine, instant(now));
                }
                existing = r.value;
            } else {
                Outcome<Map<String, AttributeValue>> r = claimByReplace(key, fingerprint, fencingToken, now, leaseUntil,
                        expires);
                if (r.ok) {
                    return ClaimResult.acquired(
                            inProgress(key, fingerprint, fencingToken, 1, leaseUntil, expires), instant(now));
                }
                existing = r.value;
            }
            if (existing == null || existing.isEmpty()) {
                // The item vanished between the check and the reply (TTL or another claim); try again.
                existing = null;
                continue;
            }
            StoredRecord current = codec.toRecord(key, existing);
            if (current.fencingToken() == fencingToken && current.state() == RecordState.IN_PROGRESS
                    && current.hasFingerprint(fingerprint) && isLive(key, existing, now)) {
                // Our own write landed on an earlier try whose reply was lost (SDK retry):
                // tokens are unique per claim, so this record is ours.
                return current.attempt() == 1 ? ClaimResult.acquired(current, instant(now))
                        : ClaimResult.takenOver(current, instant(now));
            }
            if (isLive(key, existing, now)) {
                if (current.state() == RecordState.RELEASED
                        || (current.state() == RecordState.IN_PROGRESS
                                && !instant(now).isBefore(current.leaseExpiresAt())
                                && current.hasFingerprint(fingerprint))) {
                    // Freed while our write was on its way: the next round wins it or loses to a rival.
                    continue;
                }
                return ClaimResult.existing(current, instant(now));
            }
        }
        throw new StoreUnavailableException("claim of " + key + " in DynamoDB table '" + table
                + "' kept racing with other writers for " + MAX_ROUNDS + " rounds", null, true);
    }

    private Outcome<Map<String, AttributeValue>> claimByUpdate(IdempotencyKey key, byte[] fingerprint, long token,
            long now, long leaseUntil, long expires) {
        Names n = new Names(layout).id().st().fp().tok().att().lease().exp().ttl().out();
        Map<String, AttributeValue> v = new HashMap<>();
        v.put(":inProgress", ItemCodec.state(RecordState.IN_PROGRESS));
        v.put(":released", ItemCodec.state(RecordState.RELEASED));
        v.put(":fp", ItemCodec.bytes(fingerprint));
        v.put(":tok", ItemCodec.num(token));
        v.put(":lease", ItemCodec.num(leaseUntil));
        v.put(":exp", ItemCodec.num(expires));
        v.put(":ttl", ItemCodec.num(ItemCodec.ttlSeconds(expires)));
        v.put(":now", ItemCodec.num(now));
        v.put(":zero", ItemCodec.num(0));
        v.put(":one", ItemCodec.num(1));
        UpdateItemRequest req = UpdateItemRequest.builder()
                .tableName(table)
                .key(codec.primaryKey(key))
                .updateExpression("SET #st = :inProgress, #fp = :fp, #tok = :tok, #lease = :lease, #exp = :exp,"
                        + " #ttl = :ttl, #att = if_not_exists(#att, :zero) + :one REMOVE #out")
                .conditionExpression("attribute_not_exists(#id) OR (#exp > :now AND (#st = :released"
                        + " OR (#st = :inProgress AND #lease <= :now AND #fp = :fp)))")
                .expressionAttributeNames(n.map)
                .expressionAttributeValues(v)
                .returnValues(ReturnValue.ALL_OLD)
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
                .build();
        try {
            UpdateItemResponse resp = client.updateItem(req);
            return Outcome.ok(resp.hasAttributes() ? resp.attributes() : null);
        } catch (ConditionalCheckFailedException e) {
            return Outcome.failed(e.hasItem() ? e.item() : null);
        } catch (SdkException e) {
            throw Failures.translate("claim", table, key, e);
        }
    }

    private Outcome<Map<String, AttributeValue>> claimByReplace(IdempotencyKey key, byte[] fingerprint, long token,
            long now, long leaseUntil, long expires) {
        Map<String, AttributeValue> item = new HashMap<>(codec.primaryKey(key));
        item.put(layout.state(), ItemCodec.state(RecordState.IN_PROGRESS));
        item.put(layout.fingerprint(), ItemCodec.bytes(fingerprint));
        item.put(layout.fencingToken(), ItemCodec.num(token));
        item.put(layout.attempt(), ItemCodec.num(1));
        item.put(layout.leaseUntil(), ItemCodec.num(leaseUntil));
        item.put(layout.expiresAt(), ItemCodec.num(expires));
        item.put(layout.ttl(), ItemCodec.num(ItemCodec.ttlSeconds(expires)));
        Names n = new Names(layout).id().exp();
        try {
            client.putItem(b -> b.tableName(table)
                    .item(item)
                    .conditionExpression("attribute_not_exists(#id) OR #exp <= :now")
                    .expressionAttributeNames(n.map)
                    .expressionAttributeValues(Map.of(":now", ItemCodec.num(now)))
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
            return Outcome.ok(null);
        } catch (ConditionalCheckFailedException e) {
            return Outcome.failed(e.hasItem() ? e.item() : null);
        } catch (SdkException e) {
            throw Failures.translate("claim", table, key, e);
        }
    }

    /**
     * One conditional {@code UpdateItem} fenced by the token; when it fails, the returned old
     * item tells an idempotent retry (already COMPLETED under this token) from a lost lease.
     *
     * @throws IllegalArgumentException if the outcome is over {@link #maxOutcomeBytes()}; nothing is sent
     * @throws StoreUnavailableException (not retryable) if DynamoDB still rejects the item for
     *     its size (possible only with a raised {@link Builder#maxOutcomeBytes}); nothing is written
     */
    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(outcome, "outcome");
        if (outcome.length > maxOutcomeBytes) {
            throw new IllegalArgumentException("outcome is " + outcome.length + " bytes; DynamoDB store holds at most "
                    + maxOutcomeBytes + " (400 KB item limit)");
        }
        long ttlMillis = positiveMillis("ttl", ttl);
        long now = clock.millis();
        long expires = now + ttlMillis;
        Names n = new Names(layout).st().tok().exp().ttl().out().lease();
        Map<String, AttributeValue> v = new HashMap<>();
        v.put(":completed", ItemCodec.state(RecordState.COMPLETED));
        v.put(":inProgress", ItemCodec.state(RecordState.IN_PROGRESS));
        v.put(":out", ItemCodec.bytes(outcome));
        v.put(":tok", ItemCodec.num(fencingToken));
        v.put(":exp", ItemCodec.num(expires));
        v.put(":ttl", ItemCodec.num(ItemCodec.ttlSeconds(expires)));
        v.put(":now", ItemCodec.num(now));
        try {
            client.updateItem(b -> b.tableName(table)
                    .key(codec.primaryKey(key))
                    .updateExpression("SET #st = :completed, #out = :out, #exp = :exp, #ttl = :ttl REMOVE #lease")
                    .conditionExpression("#tok = :tok AND #st = :inProgress AND #exp > :now")
                    .expressionAttributeNames(n.map)
                    .expressionAttributeValues(v)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
            return true;
        } catch (ConditionalCheckFailedException e) {
            if (!e.hasItem() || e.item().isEmpty()) {
                return false;
            }
            Map<String, AttributeValue> old = e.item();
            return isLive(key, old, now) && codec.state(key, old) == RecordState.COMPLETED
                    && codec.fencingToken(key, old) == fencingToken;
        } catch (SdkException e) {
            if (Failures.isItemTooLarge(e)) {
                // Not retryable, and typed as a store failure so the engine still hands the
                // work's result to its caller (Result.stored() == false).
                throw new StoreUnavailableException("DynamoDB rejected the outcome of " + key + " (" + outcome.length
                        + " bytes): the record would exceed the 400 KB item limit; nothing was written. Keep"
                        + " maxOutcomeBytes at its default (" + DEFAULT_MAX_OUTCOME_BYTES + ") to have such"
                        + " outcomes refused up front", e, false);
            }
            throw Failures.translate("complete", table, key, e);
        }
    }

    /** One conditional {@code UpdateItem} fenced by the token. */
    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        Objects.requireNonNull(key, "key");
        long now = clock.millis();
        Names n = new Names(layout).st().tok().exp().lease();
        Map<String, AttributeValue> v = new HashMap<>();
        v.put(":released", ItemCodec.state(RecordState.RELEASED));
        v.put(":inProgress", ItemCodec.state(RecordState.IN_PROGRESS));
        v.put(":tok", ItemCodec.num(fencingToken));
        v.put(":now", ItemCodec.num(now));
        try {
            client.updateItem(b -> b.tableName(table)
                    .key(codec.primaryKey(key))
                    .updateExpression("SET #st = :released REMOVE #lease")
                    // RELEASED by the same token matches too: a release retried after a lost reply is acknowledged.
                    .conditionExpression("#tok = :tok AND (#st = :inProgress OR #st = :released) AND #exp > :now")
                    .expressionAttributeNames(n.map)
                    .expressionAttributeValues(v));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        } catch (SdkException e) {
            throw Failures.translate("release", table, key, e);
        }
    }

    /**
     * One conditional {@code UpdateItem} fenced by the token. Only when the new deadline
     * passes the record's expiry (a lease longer than the TTL) does a second conditional
     * write move the expiry too, since an update expression cannot take a maximum.
     */
    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        Objects.requireNonNull(key, "key");
        long leaseMillis = positiveMillis("lease", lease);
        long now = clock.millis();
        long leaseUntil = now + leaseMillis;
        Map<String, AttributeValue> v = new HashMap<>();
        v.put(":inProgress", ItemCodec.state(RecordState.IN_PROGRESS));
        v.put(":tok", ItemCodec.num(fencingToken));
        v.put(":now", ItemCodec.num(now));
        v.put(":lease", ItemCodec.num(leaseUntil));
        for (int round = 0; round < MAX_ROUNDS; round++) {
            Map<String, AttributeValue> old;
            try {
                Names n = new Names(layout).st().tok().exp().lease();
                client.updateItem(b -> b.tableName(table)
                        .key(codec.primaryKey(key))
                        .updateExpression("SET #lease = :lease")
                        .conditionExpression("#tok = :tok AND #st = :inProgress AND #exp > :now AND #exp >= :lease")
                        .expressionAttributeNames(n.map)
                        .expressionAttributeValues(v)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
                return Optional.of(instant(leaseUntil));
            } catch (ConditionalCheckFailedException e) {
                old = e.hasItem() ? e.item() : null;
            } catch (SdkException e) {
                throw Failures.translate("extendLease", table, key, e);
            }
            if (old == null || old.isEmpty() || !isLive(key, old, now)
                    || codec.state(key, old) != RecordState.IN_PROGRESS || codec.fencingToken(key, old) != fencingToken) {
                return Optional.empty();
            }
            try {
                Names n = new Names(layout).st().tok().exp().lease().ttl();
                Map<String, AttributeValue> v2 = new HashMap<>(v);
                v2.put(":ttl", ItemCodec.num(ItemCodec.ttlSeconds(leaseUntil)));
                client.updateItem(b -> b.tableName(table)
                        .key(codec.primaryKey(key))
                        .updateExpression("SET #lease = :lease, #exp = :lease, #ttl = :ttl")
                        .conditionExpression("#tok = :tok AND #st = :inProgress AND #exp > :now AND #exp < :lease")
                        .expressionAttributeNames(n.map)
                        .expressionAttributeValues(v2));
                return Optional.of(instant(leaseUntil));
            } catch (ConditionalCheckFailedException e) {
                // Another extension by the same holder moved the expiry; the first form may fit now.
                continue;
            } catch (SdkException e) {
                throw Failures.translate("extendLease", table, key, e);
            }
        }
        throw new StoreUnavailableException("extendLease of " + key + " in DynamoDB table '" + table
                + "' kept racing with other writers for " + MAX_ROUNDS + " rounds", null, true);
    }

    /** A strongly consistent {@code GetItem}; an expired item that TTL has not deleted yet is absent. */
    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        GetItemResponse resp;
        try {
            resp = client.getItem(b -> b.tableName(table).key(codec.primaryKey(key)).consistentRead(true));
        } catch (SdkException e) {
            throw Failures.translate("find", table, key, e);
        }
        long now = clock.millis();
        if (!resp.hasItem() || resp.item().isEmpty() || !isLive(key, resp.item(), now)) {
            return Optional.empty();
        }
        return Optional.of(codec.toRecord(key, resp.item()));
    }

    /**
     * Returns 0: DynamoDB TTL deletes expired items (within days) at no request cost, and a
     * scan to find them would read the whole table on every call. Expired items are absent
     * for every operation meanwhile.
     */
    @Override
    public int purgeExpired(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be positive but was " + limit);
        }
        return 0;
    }

    /** Native expiry (DynamoDB TTL), the JVM's clock, and {@link #maxOutcomeBytes()}. */
    @Override
    public StoreCapabilities capabilities() {
        return new StoreCapabilities(true, false, maxOutcomeBytes);
    }

    /** Closes the client only if the store created it (via {@link DynamoDbStoreProvider}). */
    @Override
    public void close() {
        if (ownsClient) {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "DynamoDbIdempotencyStore[table=" + table + ", " + layout + "]";
    }

    private boolean isLive(IdempotencyKey key, Map<String, AttributeValue> item, long now) {
        return codec.expiresAtMillis(key, item) > now;
    }

    private static StoredRecord inProgress(IdempotencyKey key, byte[] fingerprint, long token, int attempt,
            long leaseUntil, long expires) {
        return new StoredRecord(key, RecordState.IN_PROGRESS, Arrays.copyOf(fingerprint, fingerprint.length), token,
                attempt, instant(leaseUntil), instant(expires), null);
    }

    private static Instant instant(long millis) {
        return Instant.ofEpochMilli(millis);
    }

    private static long positiveMillis(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero() || d.toMillis() < 1) {
            throw new IllegalArgumentException(what + " must be at least 1 ms but was " + d);
        }
        return d.toMillis();
    }

    /** The result of a conditional write: whether it applied, and the item the reply carried. */
    private static final class Outcome<T> {
        final boolean ok;
        final T value;

        private Outcome(boolean ok, T value) {
            this.ok = ok;
            this.value = value;
        }

        static <T> Outcome<T> ok(T value) {
            return new Outcome<>(true, value);
        }

        static <T> Outcome<T> failed(T value) {
            return new Outcome<>(false, value);
        }
    }

    /** Expression attribute names, so that any attribute name (reserved words included) works. */
    private static final class Names {
        final Map<String, String> map = new HashMap<>();
        private final TableLayout layout;

        Names(TableLayout layout) {
            this.layout = layout;
        }

        Names id() {
            map.put("#id", layout.idAttribute());
            return this;
        }

        Names st() {
            map.put("#st", layout.state());
            return this;
        }

        Names fp() {
            map.put("#fp", layout.fingerprint());
            return this;
        }

        Names tok() {
            map.put("#tok", layout.fencingToken());
            return this;
        }

        Names att() {
            map.put("#att", layout.attempt());
            return this;
        }

        Names lease() {
            map.put("#lease", layout.leaseUntil());
            return this;
        }

        Names exp() {
            map.put("#exp", layout.expiresAt());
            return this;
        }

        Names ttl() {
            map.put("#ttl", layout.ttl());
            return this;
        }

        Names out() {
            map.put("#out", layout.outcome());
            return this;
        }
    }

    /**
     * Validating builder: each setter checks its argument at once, {@link #build()} checks
     * that the required ones were given.
     */
    public static final class Builder {
        private DynamoDbClient client;
        private boolean ownsClient;
        private String tableName;
        private TableLayout layout = TableLayout.defaults();
        private Clock clock = Clock.systemUTC();
        private int maxOutcomeBytes = DEFAULT_MAX_OUTCOME_BYTES;

        private Builder() {
        }

        /** The client to use (required); the store never closes it. */
        public Builder client(DynamoDbClient client) {
            this.client = Objects.requireNonNull(client, "client");
            this.ownsClient = false;
            return this;
        }

        /** A client the store closes on {@link DynamoDbIdempotencyStore#close()}. */
        Builder ownedClient(DynamoDbClient client) {
            this.client = Objects.requireNonNull(client, "client");
            this.ownsClient = true;
            return this;
        }

        /** The table name (required): 3..255 characters of {@code a-z A-Z 0-9 _ - .}. */
        public Builder tableName(String tableName) {
            this.tableName = DynamoDbTables.checkTableName(tableName);
            return this;
        }

        /** The table layout (default {@link TableLayout#defaults()}). */
        public Builder layout(TableLayout layout) {
            this.layout = Objects.requireNonNull(layout, "layout");
            return this;
        }

        /**
         * The clock leases and expiry are judged by (default the system UTC clock). Every
         * node sharing the table must run on synchronized time.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The largest outcome accepted (default {@value DynamoDbIdempotencyStore#DEFAULT_MAX_OUTCOME_BYTES}).
         * Values above the default, up to {@link #DYNAMODB_ITEM_LIMIT}, may let DynamoDB reject
         * a record with a long key or fingerprint; that is then reported as a non-retryable
         * {@link StoreUnavailableException} and nothing is written.
         */
        public Builder maxOutcomeBytes(int maxOutcomeBytes) {
            if (maxOutcomeBytes < 1 || maxOutcomeBytes > DYNAMODB_ITEM_LIMIT) {
                throw new IllegalArgumentException("maxOutcomeBytes must be 1.." + DYNAMODB_ITEM_LIMIT
                        + " but was " + maxOutcomeBytes);
            }
            this.maxOutcomeBytes = maxOutcomeBytes;
            return this;
        }

        /**
         * Builds the store; makes no request.
         *
         * @throws IllegalStateException if the client or the table name is missing
         */
        public DynamoDbIdempotencyStore build() {
            if (client == null) {
                throw new IllegalStateException("client is required");
            }
            if (tableName == null) {
                throw new IllegalStateException("tableName is required");
            }
            return new DynamoDbIdempotencyStore(this);
        }
    }
}
