package dev.idem.benchmarks.internal;

import dev.idem.api.IdempotencyKey;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * One conditional write per operation through the same {@link DynamoDbClient}: a
 * {@code PutItem} guarded by {@code attribute_not_exists} that returns the existing item
 * when the condition fails ({@code ALL_OLD}), and an {@code UpdateItem} guarded by the token.
 */
final class DynamoDbRaw implements RawBaseline {
    private final DynamoDbClient client;
    private final String table;
    private final long leaseMillis;
    private final long ttlMillis;

    DynamoDbRaw(DynamoDbClient client, String table, long leaseMillis, long ttlMillis) {
        this.client = client;
        this.table = table;
        this.leaseMillis = leaseMillis;
        this.ttlMillis = ttlMillis;
        try {
            client.createTable(b -> b.tableName(table)
                    .keySchema(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build())
                    .attributeDefinitions(AttributeDefinition.builder().attributeName("id")
                            .attributeType(ScalarAttributeType.S).build())
                    .billingMode(BillingMode.PAY_PER_REQUEST));
        } catch (ResourceInUseException e) {
            // Already there: another benchmark in this JVM created it.
        }
    }

    @Override
    public Object claim(IdempotencyKey key, byte[] fingerprint, long token) {
        long now = System.currentTimeMillis();
        try {
            client.putItem(b -> b.tableName(table)
                    .item(Map.of("id", id(key),
                            "rs", AttributeValue.fromS("I"),
                            "rf", AttributeValue.fromB(SdkBytes.fromByteArrayUnsafe(fingerprint)),
                            "rt", AttributeValue.fromN(Long.toString(token)),
                            "rl", AttributeValue.fromN(Long.toString(now + leaseMillis)),
                            "re", AttributeValue.fromN(Long.toString(now + ttlMillis))))
                    .conditionExpression("attribute_not_exists(id)")
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
            return null;
        } catch (ConditionalCheckFailedException e) {
            return e.item();
        }
    }

    @Override
    public boolean complete(IdempotencyKey key, long token, byte[] outcome) {
        long now = System.currentTimeMillis();
        try {
            client.updateItem(b -> b.tableName(table)
                    .key(Map.of("id", id(key)))
                    .updateExpression("SET rs = :c, ro = :o, re = :e REMOVE rl")
                    .conditionExpression("rt = :t")
                    .expressionAttributeValues(Map.of(":c", AttributeValue.fromS("C"),
                            ":o", AttributeValue.fromB(SdkBytes.fromByteArrayUnsafe(outcome)),
                            ":e", AttributeValue.fromN(Long.toString(now + ttlMillis)),
                            ":t", AttributeValue.fromN(Long.toString(token)))));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    private static AttributeValue id(IdempotencyKey key) {
        return AttributeValue.fromS(key.scope() + '\u0000' + key.operation() + '\u0000' + key.key());
    }
}
