package dev.idem.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.RecordState;
import dev.idem.testsupport.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Counts the HTTP requests each operation sends, with an SDK execution interceptor that
 * sees every attempt (SDK retries included): a claim that meets an existing record learns
 * it, outcome included, from its one conditional write.
 */
@Timeout(60)
class RequestCountTest {
    private static final List<String> SENT = new CopyOnWriteArrayList<>();
    private static final DynamoDbClient COUNTED = DynamoDbLocal.client(c -> c.addExecutionInterceptor(
            new ExecutionInterceptor() {
                @Override
                public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
                    SENT.add(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME));
                }
            }));

    private final MutableClock clock = new MutableClock();
    private final Duration lease = Duration.ofSeconds(30);
    private final Duration ttl = Duration.ofHours(1);
    private DynamoDbIdempotencyStore store;
    private String scope;

    @AfterAll
    static void closeClient() {
        COUNTED.close();
    }

    @BeforeEach
    void setUp() {
        String table = DynamoDbStoreFixture.table("default");
        store = DynamoDbIdempotencyStore.builder().client(COUNTED).tableName(table).clock(clock).build();
        scope = "count-" + UUID.randomUUID();
        SENT.clear();
    }

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, "op", k);
    }

    private static byte[] fp(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private List<String> sentSince(Runnable action) {
        SENT.clear();
        action.run();
        return List.copyOf(SENT);
    }

    @Test
    void claimOfAnAbsentKeyIsOneRequest() {
        List<String> sent = sentSince(() -> assertThat(store.claim(key("a"), fp("x"), 1, lease, ttl).status())
                .isEqualTo(Status.ACQUIRED));
        assertThat(sent).containsExactly("UpdateItem");
    }

    @Test
    void conflictingClaimDuringALiveLeaseIsOneRequestAndSeesTheHolder() {
        store.claim(key("a"), fp("x"), 1, lease, ttl);
        ClaimResult[] dup = new ClaimResult[1];
        List<String> sent = sentSince(() -> dup[0] = store.claim(key("a"), fp("x"), 2, lease, ttl));
        assertThat(sent).containsExactly("UpdateItem");
        assertThat(dup[0].status()).isEqualTo(Status.EXISTING);
        assertThat(dup[0].record().fencingToken()).isEqualTo(1);
        assertThat(dup[0].record().state()).isEqualTo(RecordState.IN_PROGRESS);
    }

    @Test
    void duplicateOfACompletedRecordIsOneRequestAndCarriesTheOutcome() {
        store.claim(key("a"), fp("x"), 1, lease, ttl);
        byte[] outcome = {0, 1, 2, (byte) 0xFF};
        store.complete(key("a"), 1, outcome, ttl);
        ClaimResult[] dup = new ClaimResult[1];
        List<String> sent = sentSince(() -> dup[0] = store.claim(key("a"), fp("other"), 2, lease, ttl));
        assertThat(sent).containsExactly("UpdateItem");
        assertThat(dup[0].status()).isEqualTo(Status.EXISTING);
        assertThat(dup[0].record().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(dup[0].record().fingerprint()).isEqualTo(fp("x"));
        assertThat(dup[0].record().outcome()).isEqualTo(outcome);
    }

    @Test
    void takeoverAndReclaimAfterReleaseAreOneRequestEach() {
        store.claim(key("a"), fp("x"), 1, lease, ttl);
        clock.advance(lease);
        ClaimResult[] r = new ClaimResult[1];
        assertThat(sentSince(() -> r[0] = store.claim(key("a"), fp("x"), 2, lease, ttl)))
                .containsExactly("UpdateItem");
        assertThat(r[0].status()).isEqualTo(Status.TAKEN_OVER);
        assertThat(r[0].record().attempt()).isEqualTo(2);

        assertThat(sentSince(() -> assertThat(store.release(key("a"), 2)).isTrue())).containsExactly("UpdateItem");
        assertThat(sentSince(() -> r[0] = store.claim(key("a"), fp("x"), 3, lease, ttl)))
                .containsExactly("UpdateItem");
        assertThat(r[0].status()).isEqualTo(Status.ACQUIRED);
        assertThat(r[0].record().attempt()).isEqualTo(3);
    }

    @Test
    void completeExtendAndFindAreOneRequestEachEvenWhenRetriedOrFenced() {
        store.claim(key("a"), fp("x"), 1, lease, ttl);
        assertThat(sentSince(() -> assertThat(store.extendLease(key("a"), 1, lease)).isPresent()))
                .containsExactly("UpdateItem");
        assertThat(sentSince(() -> assertThat(store.complete(key("a"), 7, fp("o"), ttl)).isFalse()))
                .containsExactly("UpdateItem");
        assertThat(sentSince(() -> assertThat(store.complete(key("a"), 1, fp("o"), ttl)).isTrue()))
                .containsExactly("UpdateItem");
        assertThat(sentSince(() -> assertThat(store.complete(key("a"), 1, fp("o"), ttl)).isTrue()))
                .containsExactly("UpdateItem");
        assertThat(sentSince(() -> assertThat(store.find(key("a"))).isPresent())).containsExactly("GetItem");
    }

    @Test
    void anExpiredRecordNotYetDeletedByTtlCostsOneMoreConditionalWrite() {
        store.claim(key("a"), fp("x"), 1, lease, ttl);
        store.complete(key("a"), 1, fp("o"), ttl);
        clock.advance(ttl);
        ClaimResult[] r = new ClaimResult[1];
        assertThat(sentSince(() -> r[0] = store.claim(key("a"), fp("y"), 2, lease, ttl)))
                .containsExactly("UpdateItem", "PutItem");
        assertThat(r[0].status()).isEqualTo(Status.ACQUIRED);
        assertThat(r[0].record().attempt()).isEqualTo(1);
    }

    @Test
    void checkpointIsOneRequestEvenWhenRepeatedOrFenced() {
        store.claim(key("a"), fp("x"), 1, lease, ttl);
        assertThat(sentSince(() -> assertThat(store.checkpoint(key("a"), 1, fp("j1"))).isTrue()))
                .containsExactly("UpdateItem");
        assertThat(sentSince(() -> assertThat(store.checkpoint(key("a"), 1, fp("j1"))).isTrue()))
                .containsExactly("UpdateItem");
        assertThat(sentSince(() -> assertThat(store.checkpoint(key("a"), 7, fp("stale"))).isFalse()))
                .containsExactly("UpdateItem");
    }

    @Test
    void aKeyReleasedByAnotherRequestCostsOneMoreConditionalWriteThatDropsItsJournal() {
        store.claim(key("a"), fp("x"), 1, lease, ttl);
        store.checkpoint(key("a"), 1, fp("j"));
        store.release(key("a"), 1);
        ClaimResult[] r = new ClaimResult[1];
        assertThat(sentSince(() -> r[0] = store.claim(key("a"), fp("y"), 2, lease, ttl)))
                .containsExactly("UpdateItem", "UpdateItem");
        assertThat(r[0].status()).isEqualTo(Status.ACQUIRED);
        assertThat(r[0].record().attempt()).isEqualTo(2);
        assertThat(r[0].record().journal()).isNull();
    }
}
