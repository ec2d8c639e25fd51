package dev.idem.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

@Timeout(60)
class DynamoDbTablesTest {
    private final DynamoDbClient client = DynamoDbStoreFixture.client();

    @Test
    void createsAnOnDemandTableWithTtlOnceAndToleratesAnExistingOne() {
        String name = DynamoDbLocal.newTableName("tables");
        assertThat(DynamoDbTables.createTable(client, name)).isTrue();
        TableDescription t = client.describeTable(b -> b.tableName(name)).table();
        assertThat(t.billingModeSummary().billingMode()).isEqualTo(BillingMode.PAY_PER_REQUEST);
        assertThat(t.keySchema()).singleElement().satisfies(k -> {
            assertThat(k.attributeName()).isEqualTo("pk");
            assertThat(k.keyType()).isEqualTo(KeyType.HASH);
        });
        var ttl = client.describeTimeToLive(b -> b.tableName(name)).timeToLiveDescription();
        assertThat(ttl.timeToLiveStatus()).isEqualTo(TimeToLiveStatus.ENABLED);
        assertThat(ttl.attributeName()).isEqualTo("ttl");

        assertThat(DynamoDbTables.createTable(client, name)).isFalse();
    }


    @Test
    void rejectsAnInvalidTableNameBeforeCallingDynamoDb() {
        assertThatThrownBy(() -> DynamoDbTables.createTable(client, "no spaces"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'no spaces'");
    }
}
