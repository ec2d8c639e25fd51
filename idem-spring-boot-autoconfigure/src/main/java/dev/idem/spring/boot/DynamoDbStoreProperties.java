package dev.idem.spring.boot;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code idem.store.dynamodb.*}: the DynamoDB store over the application's DynamoDbClient
 * ({@link StoreConfigurations.DynamoDb}); the names are those store-dynamodb's provider reads.
 *
 * @param table The table.
 * @param maxOutcomeBytes The largest outcome stored, in bytes; the store's default (below the 400
 *     KB item limit) when unset.
 * @param createTable Whether to create the table at startup if it does not exist.
 */
@ConfigurationProperties(prefix = "idem.store.dynamodb")
record DynamoDbStoreProperties(@DefaultValue("idem_record") String table, @Nullable Integer maxOutcomeBytes,
        boolean createTable) {
}
