package dev.idem.store.dynamodb;

import dev.idem.api.StoreUnavailableException;
import dev.idem.store.dynamodb.internal.Failures;
import dev.idem.store.dynamodb.internal.ItemCodec;
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
 * Creates the table a {@link DynamoDbIdempotencyStore} needs: on-demand billing, a string
 * partition key {@code pk}, and TTL enabled on the {@code ttl} attribute. Meant for
 * development, tests and bootstrap scripts; production tables are usually declared in
 * infrastructure code (the README gives the equivalent definition).
 */
public final class DynamoDbTables {
    private static final Pattern TABLE_NAME = Pattern.compile("[a-zA-Z0-9_.-]{3,255}");

    private DynamoDbTables() {
    }

    /**
     * Creates {@code tableName} unless it exists, waits until it is active, and enables TTL
     * on {@code ttl} unless TTL is already on.
     *
     * @param client the client
     * @param tableName the table name
     * @return true if the table was created, false if it already existed (its key schema
     *     is not checked)
     * @throws StoreUnavailableException if DynamoDB refuses or cannot be reached
     */
    public static boolean createTable(DynamoDbClient client, String tableName) {
        Objects.requireNonNull(client, "client");
        checkTableName(tableName);
        boolean created;
        try {
            client.createTable(createTableRequest(tableName));
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
                        .timeToLiveSpecification(s -> s.enabled(true).attributeName(ItemCodec.TTL)));
            }
        } catch (SdkException e) {
            throw Failures.translate("createTable", tableName, null, e);
        }
        return created;
    }

    /**
     * The {@code CreateTable} request {@link #createTable} sends (on-demand billing).
     *
     * @param tableName the table name
     * @return the request
     */
    public static CreateTableRequest createTableRequest(String tableName) {
        checkTableName(tableName);
        return CreateTableRequest.builder()
                .tableName(tableName)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(AttributeDefinition.builder().attributeName(ItemCodec.ID)
                        .attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName(ItemCodec.ID).keyType(KeyType.HASH).build())
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
