package dev.idem.store.dynamodb;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;

/**
 * The full store contract with the single-table layout: a static partition key, the
 * idempotency key in the sort key, and attribute names that are DynamoDB reserved words.
 */
class CompositeLayoutContractTest extends IdempotencyStoreContract {
    static final TableLayout LAYOUT = TableLayout.builder()
            .compositeKey("PK", "IDEM", "SK")
            .stateAttribute("status")
            .fingerprintAttribute("hash")
            .fencingTokenAttribute("token")
            .attemptAttribute("count")
            .leaseUntilAttribute("lease")
            .expiresAtAttribute("expires")
            .ttlAttribute("ttl")
            .outcomeAttribute("data")
            .build();

    @Override
    protected StoreFixture createFixture() {
        return new DynamoDbStoreFixture("composite", LAYOUT);
    }
}
