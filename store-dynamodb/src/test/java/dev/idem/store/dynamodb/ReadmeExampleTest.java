package dev.idem.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The README's examples, run as printed (readme-tests checks the README against the region):
 * {@code DynamoDbClient.create()} finds DynamoDB Local through the SDK's own system properties,
 * set for the duration of the test and restored after.
 */
@Timeout(120)
class ReadmeExampleTest {
    private static final String[] SETTINGS = {"aws.region", "aws.accessKeyId", "aws.secretAccessKey", "aws.endpointUrl"};

    @Test
    void quickStart() {
        withLocalSettings(() -> {
            try (DynamoDbClient closedByTheTest = run()) {
                assertThat(closedByTheTest.describeTable(b -> b.tableName("idem")).table().tableName())
                        .isEqualTo("idem");
            }
        });
    }

    @Test
    void nonBlocking() {
        withLocalSettings(() -> {
            // tag::async[]
            DynamoDbAsyncClient client = DynamoDbAsyncClient.builder()      // yours; the store never closes it
                    .httpClientBuilder(NettyNioAsyncHttpClient.builder().maxConcurrency(100))
                    .build();
            DynamoDbTables.createTable(client, "idem");   // once (blocks until the table is active)
            IdempotencyStore store = DynamoDbIdempotencyStore.builder()
                    .asyncClient(client)
                    .tableName("idem")
                    .maxCallsInFlight(100)          // your HTTP client's maxConcurrency (default 50, the SDK's)
                    .build();
            // end::async[]
            try (client) {
                IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
                IdempotencyKey key = IdempotencyKey.of("alice", "POST /charges", "async-" + System.nanoTime());
                AtomicInteger runs = new AtomicInteger();
                Result<Integer> first = engine.executeAsync(key, "{\"amount\":10}", Integer.class, CallOptions.defaults(),
                        ctx -> CompletableFuture.completedFuture(runs.incrementAndGet())).get(60, TimeUnit.SECONDS);
                Result<Integer> again = engine.executeAsync(key, "{\"amount\":10}", Integer.class, CallOptions.defaults(),
                        ctx -> CompletableFuture.completedFuture(runs.incrementAndGet())).get(60, TimeUnit.SECONDS);
                assertThat(first.value()).isEqualTo(1);
                assertThat(again.value()).isEqualTo(1);
                assertThat(runs).hasValue(1);
                // The client is still the caller's after the store is closed.
                store.close();
                assertThat(client.describeTable(b -> b.tableName("idem")).get(60, TimeUnit.SECONDS).table().tableName())
                        .isEqualTo("idem");
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    private static void withLocalSettings(Runnable body) {
        Map<String, String> saved = new HashMap<>();
        for (String name : SETTINGS) {
            saved.put(name, System.getProperty(name));
        }
        System.setProperty("aws.region", "us-east-1");
        System.setProperty("aws.accessKeyId", "local");
        System.setProperty("aws.secretAccessKey", "local");
        System.setProperty("aws.endpointUrl", DynamoDbLocal.endpoint().toString());
        try {
            body.run();
        } finally {
            saved.forEach((name, value) -> {
                if (value == null) {
                    System.clearProperty(name);
                } else {
                    System.setProperty(name, value);
                }
            });
        }
    }

    private static DynamoDbClient run() {
        // tag::quickstart[]
        DynamoDbClient client = DynamoDbClient.create();            // yours; the store never closes it
        DynamoDbTables.createTable(client, "idem");   // once, or use the definition below
        IdempotencyStore store = DynamoDbIdempotencyStore.builder()
                .client(client)
                .tableName("idem")
                .build();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        // end::quickstart[]
        IdempotencyKey key = IdempotencyKey.of("alice", "POST /charges", "k-" + System.nanoTime());
        AtomicInteger runs = new AtomicInteger();
        Result<Integer> first = engine.execute(key, "{\"amount\":10}", Integer.class, ctx -> runs.incrementAndGet());
        Result<Integer> again = engine.execute(key, "{\"amount\":10}", Integer.class, ctx -> runs.incrementAndGet());
        assertThat(first.value()).isEqualTo(1);
        assertThat(again.value()).isEqualTo(1);
        assertThat(runs).hasValue(1);
        return client;
    }
}
