package dev.idem.quarkus.runtime;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.quarkus.IdemConfig;
import dev.idem.store.dynamodb.DynamoDbIdempotencyStore;
import dev.idem.store.dynamodb.DynamoDbTables;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The DynamoDB store over the application's {@code DynamoDbClient} bean (the Quarkiverse
 * amazon-services extension's, or one the application produces). Wired by the extension when
 * idem-store-dynamodb is present; not for applications.
 */
@Singleton
public class DynamoDbStoreCandidate implements StoreCandidate {
    private final Instance<DynamoDbClient> clients;

    /**
     * Created by CDI.
     *
     * @param clients the application's DynamoDB clients, if any
     */
    @Inject
    public DynamoDbStoreCandidate(Instance<DynamoDbClient> clients) {
        this.clients = clients;
    }

    @Override
    public IdemConfig.StoreKind kind() {
        return IdemConfig.StoreKind.DYNAMODB;
    }

    @Override
    public Optional<IdempotencyStore> create(IdemConfig config) {
        if (!clients.isResolvable()) {
            return Optional.empty();
        }
        IdemConfig.Dynamodb p = config.store().dynamodb();
        DynamoDbClient client = clients.get();
        if (p.createTable()) {
            DynamoDbTables.createTable(client, p.table());
        }
        DynamoDbIdempotencyStore.Builder b = DynamoDbIdempotencyStore.builder().client(client).tableName(p.table());
        p.maxOutcomeBytes().ifPresent(b::maxOutcomeBytes);
        return Optional.of(b.build());
    }
}
