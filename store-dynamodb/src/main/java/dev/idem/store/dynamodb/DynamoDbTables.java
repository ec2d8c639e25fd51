package dev.idem.store.dynamodb;

import dev.idem.api.StoreUnavailableException;
import dev.idem.store.dynamodb.internal.Failures;
import dev.idem.store.dynamodb.internal.ItemCodec;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
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
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;

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
            if (!ttlOn(client.describeTimeToLive(b -> b.tableName(tableName)).timeToLiveDescription())) {
                client.updateTimeToLive(enableTtl(tableName));
            }
        } catch (SdkException e) {
            throw Failures.translate("createTable", tableName, null, e);
        }
        return created;
    }

    /**
     * The same as {@link #createTable(DynamoDbClient, String)} over an asynchronous client, so an
     * application on {@code DynamoDbIdempotencyStore.builder().asyncClient(...)} needs no second,
     * synchronous client to create its table. It blocks the calling thread until the table is
     * active and TTL is on: call it at startup, never on the client's or a reactive event loop.
     *
     * @param client the asynchronous client
     * @param tableName the table name
     * @return true if the table was created, false if it already existed (its key schema
     *     is not checked)
     * @throws StoreUnavailableException if DynamoDB refuses or cannot be reached, or the calling
     *     thread is interrupted meanwhile (its interrupt flag is set again)
     */
    public static boolean createTable(DynamoDbAsyncClient client, String tableName) {
        Objects.requireNonNull(client, "client");
        checkTableName(tableName);
        boolean created;
        try {
            await(client.createTable(createTableRequest(tableName)));
            created = true;
        } catch (ResourceInUseException e) {
            created = false;
        } catch (SdkException e) {
            throw Failures.translate("createTable", tableName, null, e);
        }
        try {
            await(client.waiter().waitUntilTableExists(b -> b.tableName(tableName)));
            if (!ttlOn(await(client.describeTimeToLive(b -> b.tableName(tableName))).timeToLiveDescription())) {
                await(client.updateTimeToLive(enableTtl(tableName)));
            }
        } catch (SdkException e) {
            throw Failures.translate("createTable", tableName, null, e);
        }
        return created;
    }

    private static boolean ttlOn(TimeToLiveDescription ttl) {
        return ttl != null && (ttl.timeToLiveStatus() == TimeToLiveStatus.ENABLED
                || ttl.timeToLiveStatus() == TimeToLiveStatus.ENABLING);
    }

    private static UpdateTimeToLiveRequest enableTtl(String tableName) {
        return UpdateTimeToLiveRequest.builder().tableName(tableName)
                .timeToLiveSpecification(s -> s.enabled(true).attributeName(ItemCodec.TTL)).build();
    }

    /** The stage's value, its SDK failure thrown as the synchronous client would throw it. */
    private static <T> T await(CompletableFuture<T> stage) {
        try {
            return stage.get();
        } catch (InterruptedException e) {
            stage.cancel(true);
            // Failures.translate gives the interrupt back to this thread.
            throw AbortedException.builder().message("interrupted while waiting for DynamoDB").cause(e).build();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            while (cause instanceof CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw new IllegalStateException(cause);
        }
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
