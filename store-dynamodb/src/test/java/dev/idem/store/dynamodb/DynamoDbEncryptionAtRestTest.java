package dev.idem.store.dynamodb;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.tck.EncryptionAtRestContract;
import dev.idem.store.dynamodb.internal.ItemCodec;
import dev.idem.store.tck.StoreFixture;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** What DynamoDB Local holds for a record (its item, read with the SDK's client) once outcomes are protected. */
class DynamoDbEncryptionAtRestTest extends EncryptionAtRestContract {
    private DynamoDbStoreFixture dynamo;

    @Override
    protected StoreFixture createFixture() {
        dynamo = new DynamoDbStoreFixture();
        return dynamo;
    }

    @Override
    protected byte[] rawRecord(IdempotencyKey key) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DynamoDbStoreFixture.client().getItem(r -> r.tableName(dynamo.table).consistentRead(true)
                .key(new ItemCodec(dynamo.table).primaryKey(key))).item().forEach((name, value) -> {
                    out.writeBytes(name.getBytes(StandardCharsets.UTF_8));
                    out.writeBytes(bytes(value));
                });
        return out.toByteArray();
    }

    private static byte[] bytes(AttributeValue v) {
        if (v.b() != null) {
            return v.b().asByteArray();
        }
        return String.valueOf(v.s() != null ? v.s() : v.n()).getBytes(StandardCharsets.UTF_8);
    }
}
