package dev.idem.store.dynamodb;

import dev.idem.api.StoreUnavailableException;
import dev.idem.store.dynamodb.internal.Failures;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * Creates the table a {@link DynamoDbIdempotencyStore} needs: on-demand billing, the key
 * schema of a {@link TableLayout}, and TTL enabled on the layout's TTL attribute. Meant for
 * development, tests and bootstrap scripts; production tables are usually declared in
 * infrastructure code (the README gives the equivalent definition).
 */
public final class DynamoDbTables {
    private static final Pattern TABLE_NAME = Pattern.compile("[a-zA-Z0-9_.-]{3,255}");

    private DynamoDbTables() {
    }

    /**
     * Creates {@code tableName} for {@code layout} unless it exists, waits until it is
     * active, and enables TTL on {@link TableLayout#ttl()} unless TTL is already on.
     *
     * @return true if the table was created, false if it already existed (its key schema
     *     is not checked)
     * @throws StoreUnavailableException if DynamoDB refuses or cannot be reached
     */
    public static boolean createTable(DynamoDbClient client, String tableName, TableLayout layout) {
        Objects.requireNonNull(client, "client");
        checkTableName(tableName);
        Objects.requireNonNull(layout, "layout");
        boolean created;
        try {
            client.createTable(createTableRequest(tableName, layout));
            created = true;
        } catch (ResourceInUseException e) {
            created = false;
        } catch (SdkException e) {
            throw Failures.translate("createTable", tableName, null, e);
        }
        try {
            client.waiter().waitUntilTableExists(b -> b.tableName(tableName));
            TimeToLiveDescription ttl = client.describeTimeToLive(b -> b.tableName(tableName))
                    .timeToLiveDescription();
            boolean on = ttl != null && (ttl.timeToLiveStatus() == TimeToLiveStatus.ENABLED
                    || ttl.timeToLiveStatus() == TimeToLiveStatus.ENABLING);
            if (!on) {
                client.updateTimeToLive(b -> b.tableName(tableName)
                        .timeToLiveSpecification(s -> s.enabled(true).attributeName(layout.ttl())));
            }
        } catch (SdkException e) {
            throw Failures.translate("createTable", tableName, null, e);
        }
        return created;
    }

    /** The {@code CreateTable} request {@link #createTable} sends (on-demand billing). */
    public static CreateTableRequest createTableRequest(String tableName, TableLayout layout) {
        checkTableName(tableName);
        Objects.requireNonNull(layout, "layout");
        List<AttributeDefinition> attributes = new ArrayList<>();
        List<KeySchemaElement> keys = new ArrayList<>();
        attributes.add(AttributeDefinition.builder().attributeName(layout.partitionKey())
                .attributeType(ScalarAttributeType.S).build());
        keys.add(KeySchemaElement.builder().attributeName(layout.partitionKey()).keyType(KeyType.HASH).build());
        layout.sortKey().ifPresent(sk -> {
            attributes.add(AttributeDefinition.builder().attributeName(sk).attributeType(ScalarAttributeType.S).build());
            keys.add(KeySchemaElement.builder().attributeName(sk).keyType(KeyType.RANGE).build());
        });
        return CreateTableRequest.builder()
                .tableName(tableName)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(attributes)
                .keySchema(keys)
                .build();
    }

    static String checkTableName(String tableName) {
        Objects.requireNonNull(tableName, "tableName");
        if (!TABLE_NAME.matcher(tableName).matches()) {
            throw new IllegalArgumentException("tableName must be 3..255 characters of a-z A-Z 0-9 _ - . but was '"
                    + (tableName.length() > 300 ? tableName.substring(0, 300) + "..." : tableName) + "'");
        }
        return tableName;
    }
}
