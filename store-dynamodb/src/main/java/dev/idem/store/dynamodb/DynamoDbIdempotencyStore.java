package dev.idem.store.dynamodb;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoreCapabilities;
import dev.idem.api.store.StoreLimits;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.dynamodb.internal.Arguments;
import dev.idem.store.dynamodb.internal.ClaimMachine;
import dev.idem.store.dynamodb.internal.DynamoDbCalls;
import dev.idem.store.dynamodb.internal.ItemCodec;
import dev.idem.store.dynamodb.internal.RecordOperations;
import dev.idem.store.dynamodb.internal.Requests;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * An {@link IdempotencyStore} on one DynamoDB table, through a {@link DynamoDbClient} or a
 * {@link DynamoDbAsyncClient} the caller owns. Over the asynchronous client the store also offers
 * its operations in {@linkplain #nonBlocking() non-blocking form}, which the engine's asynchronous
 * calls use, holding no thread while DynamoDB answers (its blocking operations then wait for the
 * same requests on the caller's thread). Every operation is a single conditional write (or a consistent read), so it
 * is atomic against every other process on the table; a claim that meets an existing
 * record learns that record, outcome included, from the failed write itself
 * ({@code ReturnValuesOnConditionCheckFailure=ALL_OLD}). The claim's rounds are described
 * in {@link ClaimMachine}, the other operations are in {@link RecordOperations}, and the
 * requests themselves are built by {@link Requests}.
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
 * <p><b>Size.</b> An item holds at most 400 KB. Outcomes and step journals are stored
 * uncompressed; one over {@link #maxOutcomeBytes()} (by default
 * {@value #DEFAULT_MAX_OUTCOME_BYTES} bytes, which always fits together with the largest
 * key and a fingerprint of up to {@value #MAX_FINGERPRINT_BYTES} bytes) is rejected with an
 * {@link IllegalArgumentException} before anything is sent. A write DynamoDB still rejects
 * for its size (only possible with a raised limit) fails with a non-retryable
 * {@link StoreUnavailableException} that says so; nothing is written in either case.
 */
public final class DynamoDbIdempotencyStore implements IdempotencyStore {
    /** DynamoDB's item size limit, in bytes. */
    public static final int DYNAMODB_ITEM_LIMIT = 400 * 1024;
    /** Default and guaranteed-to-fit outcome limit: the item limit less 16 KiB for everything else. */
    public static final int DEFAULT_MAX_OUTCOME_BYTES = DYNAMODB_ITEM_LIMIT - 16 * 1024;
    /** Default {@link Builder#maxCallsInFlight}: the AWS SDK's default connection pool size. */
    public static final int DEFAULT_MAX_CALLS_IN_FLIGHT = 50;
    /** Largest fingerprint a claim accepts (digests are 32 bytes; this leaves ample room). */
    public static final int MAX_FINGERPRINT_BYTES = 8 * 1024;

    private final AutoCloseable client;
    private final boolean ownsClient;
    private final DynamoDbCalls calls;
    private final NonBlockingStore nonBlocking;
    private final int maxCallsInFlight;
    private final String table;
    private final Clock clock;
    private final int maxOutcomeBytes;
    private final ClaimMachine claims;
    private final RecordOperations records;

    private DynamoDbIdempotencyStore(Builder b) {
        this.client = b.client != null ? b.client : b.asyncClient;
        this.ownsClient = b.ownsClient;
        this.calls = b.client != null ? DynamoDbCalls.of(b.client) : DynamoDbCalls.of(b.asyncClient);
        this.maxCallsInFlight = b.maxCallsInFlight;
        this.table = b.tableName;
        this.clock = b.clock;
        this.maxOutcomeBytes = b.maxOutcomeBytes;
        ItemCodec codec = new ItemCodec(table);
        Requests requests = new Requests(table, codec);
        this.claims = new ClaimMachine(calls, table, codec, requests);
        this.records = new RecordOperations(calls, table, codec, requests, clock, DEFAULT_MAX_OUTCOME_BYTES);
        this.nonBlocking = b.asyncClient == null ? null : new NonBlockingOperations();
    }

    /**
     * A builder; {@link Builder#client} and {@link Builder#tableName} are required.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The table this store writes to.
     *
     * @return the table name
     */
    public String tableName() {
        return table;
    }

    /**
     * The largest outcome {@link #complete} (and journal {@link #checkpoint}) accepts, in bytes.
     *
     * @return the limit
     */
    public int maxOutcomeBytes() {
        return maxOutcomeBytes;
    }

    /** One conditional write in the common cases; see {@link ClaimMachine} for the others. */
    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        return DynamoDbCalls.join(claimStage(key, fingerprint, fencingToken, lease, ttl));
    }

    private CompletableFuture<ClaimResult> claimStage(IdempotencyKey key, byte[] fingerprint, long fencingToken,
            Duration lease, Duration ttl) {
        Objects.requireNonNull(key, "key");
        StoreLimits.checkFingerprint(fingerprint, MAX_FINGERPRINT_BYTES);
        long leaseMillis = Arguments.positiveMillis("lease", lease);
        long ttlMillis = Arguments.positiveMillis("ttl", ttl);
        long now = clock.millis();
        long leaseUntil = now + leaseMillis;
        return claims.claim(key, fingerprint, fencingToken, now, leaseUntil, Math.max(now + ttlMillis, leaseUntil));
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
        return DynamoDbCalls.join(completeStage(key, fencingToken, outcome, ttl));
    }

    private CompletableFuture<Boolean> completeStage(IdempotencyKey key, long fencingToken, byte[] outcome,
            Duration ttl) {
        Objects.requireNonNull(key, "key");
        StoreLimits.checkSize("outcome", outcome, maxOutcomeBytes, "DynamoDB\'s 400 KB item limit");
        return records.complete(key, fencingToken, outcome, Arguments.positiveMillis("ttl", ttl));
    }

    /** One conditional {@code UpdateItem} fenced by the token. */
    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        Objects.requireNonNull(key, "key");
        return DynamoDbCalls.join(records.release(key, fencingToken));
    }

    /**
     * One conditional {@code UpdateItem} fenced by the token.
     *
     * @throws IllegalArgumentException if the journal is over {@link #maxOutcomeBytes()}; nothing is sent
     * @throws StoreUnavailableException (not retryable) if DynamoDB still rejects the item for its size
     */
    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
        Objects.requireNonNull(key, "key");
        StoreLimits.checkSize("journal", journal, maxOutcomeBytes, "DynamoDB\'s 400 KB item limit");
        return DynamoDbCalls.join(records.checkpoint(key, fencingToken, journal));
    }

    /**
     * One conditional {@code UpdateItem} fenced by the token. Only when the new deadline
     * passes the record's expiry (a lease longer than the TTL) does a second conditional
     * write move the expiry too, since an update expression cannot take a maximum.
     */
    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        Objects.requireNonNull(key, "key");
        return DynamoDbCalls.join(records.extendLease(key, fencingToken, Arguments.positiveMillis("lease", lease)));
    }

    /** A strongly consistent {@code GetItem}; an expired item that TTL has not deleted yet is absent. */
    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        return DynamoDbCalls.join(records.find(key));
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

    /**
     * The same operations without blocking, over the {@link DynamoDbAsyncClient} the store was
     * built with (each one the same requests as its blocking form, its stage completed by the SDK);
     * empty over a synchronous client.
     */
    @Override
    public Optional<NonBlockingStore> nonBlocking() {
        return Optional.ofNullable(nonBlocking);
    }

    /** Closes the client only if the store created it (via {@link DynamoDbStoreProvider}). */
    @Override
    public void close() {
        if (ownsClient) {
            try {
                client.close();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("closing the DynamoDB client failed", e);
            }
        }
    }

    /** The non-blocking form: the same stages the blocking operations wait for. */
    private final class NonBlockingOperations implements NonBlockingStore {
        @Override
        public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                Duration lease, Duration ttl) {
            return claimStage(key, fingerprint, fencingToken, lease, ttl);
        }

        @Override
        public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome,
                Duration ttl) {
            return completeStage(key, fencingToken, outcome, ttl);
        }

        @Override
        public CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken) {
            Objects.requireNonNull(key, "key");
            return records.release(key, fencingToken);
        }

        @Override
        public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            Objects.requireNonNull(key, "key");
            StoreLimits.checkSize("journal", journal, maxOutcomeBytes, "DynamoDB\'s 400 KB item limit");
            return records.checkpoint(key, fencingToken, journal);
        }

        @Override
        public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken,
                Duration lease) {
            Objects.requireNonNull(key, "key");
            return records.extendLease(key, fencingToken, Arguments.positiveMillis("lease", lease));
        }

        @Override
        public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
            Objects.requireNonNull(key, "key");
            return records.find(key);
        }

        @Override
        public int maxCallsInFlight() {
            return maxCallsInFlight;
        }

        @Override
        public String toString() {
            return "non-blocking " + DynamoDbIdempotencyStore.this;
        }
    }

    @Override
    public String toString() {
        return "DynamoDbIdempotencyStore[table=" + table + ", maxOutcomeBytes=" + maxOutcomeBytes
                + (nonBlocking != null ? ", async client" : "") + "]";
    }

    /**
     * Validating builder: each setter checks its argument at once, {@link #build()} checks
     * that the required ones were given.
     */
    public static final class Builder {
        private DynamoDbClient client;
        private DynamoDbAsyncClient asyncClient;
        private boolean ownsClient;
        private int maxCallsInFlight = DEFAULT_MAX_CALLS_IN_FLIGHT;
        private String tableName;
        private Clock clock = Clock.systemUTC();
        private int maxOutcomeBytes = DEFAULT_MAX_OUTCOME_BYTES;

        private Builder() {
        }

        /**
         * The client to use (this or {@link #asyncClient} is required); the store never closes it.
         *
         * @param client the client
         * @return this builder
         */
        public Builder client(DynamoDbClient client) {
            this.client = Objects.requireNonNull(client, "client");
            this.asyncClient = null;
            this.ownsClient = false;
            return this;
        }

        /**
         * The asynchronous client to use instead of a synchronous one; the store never closes it.
         * The store then also offers its {@linkplain DynamoDbIdempotencyStore#nonBlocking()
         * non-blocking operations}, and the engine's asynchronous calls hold no thread while
         * DynamoDB answers. The client needs an asynchronous HTTP client on the class path
         * ({@code software.amazon.awssdk:netty-nio-client}, which this module leaves out, or
         * {@code aws-crt-client}).
         *
         * @param asyncClient the client
         * @return this builder
         */
        public Builder asyncClient(DynamoDbAsyncClient asyncClient) {
            this.asyncClient = Objects.requireNonNull(asyncClient, "asyncClient");
            this.client = null;
            this.ownsClient = false;
            return this;
        }

        /**
         * How many of one engine's non-blocking calls the store takes at once (default
         * {@value DynamoDbIdempotencyStore#DEFAULT_MAX_CALLS_IN_FLIGHT}, the SDK's default number of
         * connections); the engine keeps the rest waiting in no thread, so a lease renewal waits
         * behind at most this many requests for a connection. Set it to your asynchronous HTTP
         * client's {@code maxConcurrency}. Used only with {@link #asyncClient}.
         *
         * @param maxCallsInFlight at least 1
         * @return this builder
         */
        public Builder maxCallsInFlight(int maxCallsInFlight) {
            if (maxCallsInFlight < 1) {
                throw new IllegalArgumentException("maxCallsInFlight must be at least 1 but was " + maxCallsInFlight);
            }
            this.maxCallsInFlight = maxCallsInFlight;
            return this;
        }

        /** A client the store closes on {@link DynamoDbIdempotencyStore#close()}. */
        Builder ownedClient(DynamoDbClient client) {
            this.client = Objects.requireNonNull(client, "client");
            this.ownsClient = true;
            return this;
        }

        /**
         * The table name (required): 3..255 characters of {@code a-z A-Z 0-9 _ - .}. The table
         * has a string partition key {@code pk} and TTL on {@code ttl} (see {@link DynamoDbTables}).
         *
         * @param tableName the table name
         * @return this builder
         */
        public Builder tableName(String tableName) {
            this.tableName = DynamoDbTables.checkTableName(tableName);
            return this;
        }

        /**
         * The clock leases and expiry are judged by (default the system UTC clock). Every
         * node sharing the table must run on synchronized time.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The largest outcome or step journal accepted (default
         * {@value DynamoDbIdempotencyStore#DEFAULT_MAX_OUTCOME_BYTES}). Values above the default, up to
         * {@link #DYNAMODB_ITEM_LIMIT}, may let DynamoDB reject a record with a long key or
         * fingerprint; that is then reported as a non-retryable {@link StoreUnavailableException}
         * and nothing is written.
         *
         * @param maxOutcomeBytes 1 to {@link #DYNAMODB_ITEM_LIMIT}
         * @return this builder
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
         * @return the store
         * @throws IllegalStateException if the client or the table name is missing
         */
        public DynamoDbIdempotencyStore build() {
            if (client == null && asyncClient == null) {
                throw new IllegalStateException("client (or asyncClient) is required");
            }
            if (tableName == null) {
                throw new IllegalStateException("tableName is required");
            }
            return new DynamoDbIdempotencyStore(this);
        }
    }
}
