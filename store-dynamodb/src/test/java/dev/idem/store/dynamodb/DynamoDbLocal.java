package dev.idem.store.dynamodb;

import dev.idem.store.tck.AnswerGate;
import dev.idem.testsupport.dynamodb.DynamoDbLocalServer;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.http.async.AsyncExecuteRequest;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * SDK clients on the test JVM's one DynamoDB Local server ({@link DynamoDbLocalServer#shared()}:
 * in process, on a free loopback port, started on first use, stopped when the JVM exits). Tests
 * talk to it over HTTP with ordinary SDK clients, so what they measure (requests, errors) is
 * what a real deployment sees.
 */
final class DynamoDbLocal {
    private DynamoDbLocal() {
    }

    /** The server's endpoint, starting it on first use. */
    static URI endpoint() {
        return DynamoDbLocalServer.shared().endpoint();
    }

    /** A new client of its own (own connection pool) on the local server. */
    static DynamoDbClient client() {
        return client(c -> { });
    }

    /** A new client with extra client configuration (interceptors, retry policy). */
    static DynamoDbClient client(Consumer<ClientOverrideConfiguration.Builder> overrides) {
        return builder().overrideConfiguration(overrides).build();
    }

    /** A client builder pointed at the local server, for tests that need more settings. */
    static DynamoDbClientBuilder builder() {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClientBuilder(Apache5HttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(5))
                        .socketTimeout(Duration.ofSeconds(30)));
    }

    /**
     * A new asynchronous client (Netty, its own event loop and connection pool of
     * {@code maxConcurrency}) on the local server.
     */
    static DynamoDbAsyncClient asyncClient(int maxConcurrency) {
        return asyncClient(maxConcurrency, new AnswerGate());
    }

    /**
     * {@link #asyncClient(int)} whose requests wait, in no thread, while {@code gate} is held: the
     * store's answers held as the kit's check of the non-blocking form holds them.
     */
    static DynamoDbAsyncClient asyncClient(int maxConcurrency, AnswerGate gate) {
        SdkAsyncHttpClient netty = NettyNioAsyncHttpClient.builder()
                .maxConcurrency(maxConcurrency)
                .connectionTimeout(Duration.ofSeconds(5))
                .readTimeout(Duration.ofSeconds(30))
                .build();
        return DynamoDbAsyncClient.builder()
                .endpointOverride(endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(new SdkAsyncHttpClient() {
                    @Override
                    public CompletableFuture<Void> execute(AsyncExecuteRequest request) {
                        return gate.open().thenCompose(open -> netty.execute(request));
                    }

                    @Override
                    public String clientName() {
                        return netty.clientName();
                    }

                    @Override
                    public void close() {
                        netty.close();
                    }
                })
                .build();
    }

    /** A fresh table name, so test classes never share a table. */
    static String newTableName(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
