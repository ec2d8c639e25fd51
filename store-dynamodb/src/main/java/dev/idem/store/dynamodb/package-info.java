/**
 * An idem store on Amazon DynamoDB (AWS SDK for Java v2): {@link
 * dev.idem.store.dynamodb.DynamoDbIdempotencyStore} over a caller's {@code DynamoDbClient},
 * a table helper ({@link
 * dev.idem.store.dynamodb.DynamoDbTables}) and a ServiceLoader provider. Leases and expiry
 * follow the store's injectable clock; nodes need synchronized clocks.
 */
package dev.idem.store.dynamodb;
