package dev.idem.store.dynamodb;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import java.net.URI;
import java.net.URISyntaxException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * ServiceLoader entry ({@code dynamodb}): builds a store on a client of its own, configured
 * by properties, on the engine's clock. The store closes that client when it is closed.
 *
 * <ul>
 *   <li>{@value #TABLE} (required): the table name;</li>
 *   <li>{@value #REGION}: the AWS region (default: the SDK's region chain);</li>
 *   <li>{@value #ENDPOINT}: an endpoint override, e.g. {@code http://localhost:8000} for DynamoDB Local;</li>
 *   <li>{@value #CREATE_TABLE}: {@code true} to create the table (on-demand, TTL on) if missing;</li>
 *   <li>{@value #MAX_OUTCOME_BYTES}: the largest outcome or step journal (default
 *       {@value DynamoDbIdempotencyStore#DEFAULT_MAX_OUTCOME_BYTES}).</li>
 * </ul>
 * Credentials come from the SDK's default chain.
 */
public final class DynamoDbStoreProvider implements StoreProvider {
    /** Property naming the table. */
    public static final String TABLE = "idem.store.dynamodb.table";
    /** Property naming the region. */
    public static final String REGION = "idem.store.dynamodb.region";
    /** Property giving an endpoint override. */
    public static final String ENDPOINT = "idem.store.dynamodb.endpoint";
    /** Property asking for the table to be created if missing. */
    public static final String CREATE_TABLE = "idem.store.dynamodb.create-table";
    /** Property for the largest outcome or step journal, in bytes. */
    public static final String MAX_OUTCOME_BYTES = "idem.store.dynamodb.max-outcome-bytes";

    /** Public no-argument constructor for ServiceLoader. */
    public DynamoDbStoreProvider() {
    }

    @Override
    public String name() {
        return "dynamodb";
    }

    @Override
    public IdempotencyStore create(Context context) {
        String table = context.property(TABLE).filter(s -> !s.isBlank()).orElseThrow(() ->
                new IllegalStateException("the DynamoDB store needs a table: set property " + TABLE));
        DynamoDbIdempotencyStore.Builder store = DynamoDbIdempotencyStore.builder().tableName(table)
                .clock(context.clock());
        context.property(MAX_OUTCOME_BYTES).ifPresent(v -> store.maxOutcomeBytes(maxOutcome(v)));
        boolean create = parseBoolean(context.property(CREATE_TABLE).orElse("false"));
        DynamoDbClientBuilder builder = DynamoDbClient.builder();
        context.property(REGION).filter(s -> !s.isBlank()).ifPresent(r -> builder.region(Region.of(r)));
        context.property(ENDPOINT).filter(s -> !s.isBlank()).ifPresent(e -> builder.endpointOverride(uri(e)));
        DynamoDbClient client = builder.build();
        try {
            if (create) {
                DynamoDbTables.createTable(client, table);
            }
            return store.ownedClient(client).build();
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    private static int maxOutcome(String value) {
        int n;
        try {
            n = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            n = 0;
        }
        if (n < 1 || n > DynamoDbIdempotencyStore.DYNAMODB_ITEM_LIMIT) {
            throw new IllegalStateException(MAX_OUTCOME_BYTES + " must be 1.." + DynamoDbIdempotencyStore.DYNAMODB_ITEM_LIMIT
                    + " bytes but was '" + value + "'");
        }
        return n;
    }

    private static boolean parseBoolean(String v) {
        if ("true".equalsIgnoreCase(v)) {
            return true;
        }
        if ("false".equalsIgnoreCase(v)) {
            return false;
        }
        throw new IllegalStateException(CREATE_TABLE + " must be true or false but was '" + v + "'");
    }

    private static URI uri(String s) {
        try {
            URI u = new URI(s);
            if (u.getScheme() == null || u.getHost() == null) {
                throw new IllegalStateException(ENDPOINT + " must be an absolute URI like http://localhost:8000 but was '"
                        + s + "'");
            }
            return u;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(ENDPOINT + " is not a URI: '" + s + "'", e);
        }
    }
}
