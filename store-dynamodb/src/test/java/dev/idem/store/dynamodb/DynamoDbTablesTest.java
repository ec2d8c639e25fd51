package dev.idem.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.StoreUnavailableException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
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
    void theAsynchronousClientCreatesTheSameTableWithoutASecondClient() {
        String name = DynamoDbLocal.newTableName("tables-async");
        try (DynamoDbAsyncClient async = DynamoDbLocal.asyncClient(4)) {
            assertThat(DynamoDbTables.createTable(async, name)).isTrue();
            assertThat(DynamoDbTables.createTable(async, name)).isFalse();
        }
        TableDescription t = client.describeTable(b -> b.tableName(name)).table();
        assertThat(t.billingModeSummary().billingMode()).isEqualTo(BillingMode.PAY_PER_REQUEST);
        assertThat(t.keySchema()).singleElement().satisfies(k -> assertThat(k.attributeName()).isEqualTo("pk"));
        var ttl = client.describeTimeToLive(b -> b.tableName(name)).timeToLiveDescription();
        assertThat(ttl.timeToLiveStatus()).isEqualTo(TimeToLiveStatus.ENABLED);
        assertThat(ttl.attributeName()).isEqualTo("ttl");
    }

    @Test
    void anInterruptedAsynchronousCreationIsAStoreErrorAndKeepsTheInterrupt() {
        try (DynamoDbAsyncClient async = DynamoDbLocal.asyncClient(4)) {
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> DynamoDbTables.createTable(async, DynamoDbLocal.newTableName("interrupted")))
                        .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("interrupted");
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
            } finally {
                Thread.interrupted();
            }
        }
    }

    @Test
    void anUnreachableAsynchronousClientIsARetryableStoreError() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        try (DynamoDbAsyncClient dead = DynamoDbAsyncClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + port))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClientBuilder(NettyNioAsyncHttpClient.builder())
                .build()) {
            assertThatThrownBy(() -> DynamoDbTables.createTable(dead, "idem"))
                    .isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.retryable()).isTrue());
        }
    }

    @Test
    void rejectsAnInvalidTableNameBeforeCallingDynamoDb() {
        assertThatThrownBy(() -> DynamoDbTables.createTable(client, "no spaces"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'no spaces'");
        try (DynamoDbAsyncClient async = DynamoDbLocal.asyncClient(1)) {
            assertThatThrownBy(() -> DynamoDbTables.createTable(async, "no spaces"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'no spaces'");
        }
    }
}
