package dev.idem.store.dynamodb;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The test kit's view of the DynamoDB store: two stores on two clients of their own (two
 * "processes") sharing one table and one {@link MutableClock}, so time passes without
 * sleeping. Tables and clients are made once per JVM; every test works in its own scope.
 */
final class DynamoDbStoreFixture implements StoreFixture {
    private static final Map<String, String> TABLES = new ConcurrentHashMap<>();
    private static final DynamoDbClient CLIENT_A = DynamoDbLocal.client();
    private static final DynamoDbClient CLIENT_B = DynamoDbLocal.client();

    final MutableClock clock = new MutableClock();
    final String table;
    final DynamoDbIdempotencyStore store;
    final DynamoDbIdempotencyStore other;

    DynamoDbStoreFixture() {
        this.table = table("default");
        this.store = DynamoDbIdempotencyStore.builder().client(CLIENT_A).tableName(table).clock(clock).build();
        this.other = DynamoDbIdempotencyStore.builder().client(CLIENT_B).tableName(table).clock(clock).build();
    }

    /** A table created on first use under {@code name}. */
    static String table(String name) {
        return TABLES.computeIfAbsent(name, n -> {
            String t = DynamoDbLocal.newTableName("idem-" + n);
            DynamoDbTables.createTable(CLIENT_A, t);
            return t;
        });
    }

    /** The shared first client. */
    static DynamoDbClient client() {
        return CLIENT_A;
    }

    @Override
    public IdempotencyStore store() {
        return store;
    }

    @Override
    public IdempotencyStore otherStore() {
        return other;
    }

    @Override
    public void advance(Duration d) {
        clock.advance(d);
    }

    @Override
    public boolean clockIsSimulated() {
        return true;
    }

    /** What the store guarantees to fit: DynamoDB's 400 KB item limit rules out 1 MiB. */
    @Override
    public int largeOutcomeBytes() {
        return DynamoDbIdempotencyStore.DEFAULT_MAX_OUTCOME_BYTES;
    }
}
