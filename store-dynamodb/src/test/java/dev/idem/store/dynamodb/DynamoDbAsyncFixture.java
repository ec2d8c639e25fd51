package dev.idem.store.dynamodb;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.tck.AnswerGate;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * The DynamoDB store over the asynchronous client ({@link DynamoDbIdempotencyStore.Builder#asyncClient}):
 * its store on an asynchronous client, the second store on a synchronous one (another "process"
 * on the other client kind), one table and one {@link MutableClock}. The clients are made once
 * per JVM.
 */
final class DynamoDbAsyncFixture implements StoreFixture {
    /** Holds the asynchronous client's requests while a test holds the store's answers. */
    private static final AnswerGate ANSWERS = new AnswerGate();
    private static final DynamoDbAsyncClient ASYNC = DynamoDbLocal.asyncClient(64, ANSWERS);

    final MutableClock clock = new MutableClock();
    final DynamoDbIdempotencyStore store;
    final DynamoDbIdempotencyStore other;

    DynamoDbAsyncFixture() {
        String table = DynamoDbStoreFixture.table("default");
        this.store = DynamoDbIdempotencyStore.builder().asyncClient(ASYNC).tableName(table).clock(clock)
                .maxCallsInFlight(64).build();
        this.other = DynamoDbIdempotencyStore.builder().client(DynamoDbStoreFixture.client()).tableName(table)
                .clock(clock).build();
    }

    @Override
    public IdempotencyStore store() {
        return store;
    }

    @Override
    public IdempotencyStore otherStore() {
        return other;
    }

    @Override
    public void advance(Duration d) {
        clock.advance(d);
    }

    @Override
    public boolean clockIsSimulated() {
        return true;
    }

    /** Holds the asynchronous client's requests (in its HTTP client, in no thread) until the hold is closed. */
    @Override
    public AnswersHeld holdAnswers() {
        return ANSWERS.hold();
    }

    @Override
    public int largeOutcomeBytes() {
        return DynamoDbIdempotencyStore.DEFAULT_MAX_OUTCOME_BYTES;
    }
}
