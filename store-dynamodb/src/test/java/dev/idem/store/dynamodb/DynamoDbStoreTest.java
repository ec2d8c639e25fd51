package dev.idem.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.dynamodb.internal.ItemCodec;
import dev.idem.testsupport.MutableClock;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** What the DynamoDB store adds to the contract: item attributes, size limits, error mapping. */
@Timeout(60)
class DynamoDbStoreTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);

    private final MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00.250Z"));
    private final String table = DynamoDbStoreFixture.table("default");
    private final DynamoDbIdempotencyStore store = DynamoDbIdempotencyStore.builder()
            .client(DynamoDbStoreFixture.client()).tableName(table).clock(clock).build();
    private final String scope = "unit-" + UUID.randomUUID();

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, "op", k);
    }

    private Map<String, AttributeValue> rawItem(DynamoDbIdempotencyStore s, IdempotencyKey k) {
        ItemCodec codec = new ItemCodec(s.tableName());
        return DynamoDbStoreFixture.client()
                .getItem(b -> b.tableName(s.tableName()).key(codec.primaryKey(k)).consistentRead(true)).item();
    }

    @Test
    void itemsCarryExactMillisecondExpiryAndTtlInEpochSecondsRoundedUp() {
        store.claim(key("a"), new byte[] {1}, 5, LEASE, TTL);
        Map<String, AttributeValue> item = rawItem(store, key("a"));
        long expMillis = clock.millis() + TTL.toMillis();
        assertThat(item.get("exp").n()).isEqualTo(Long.toString(expMillis));
        assertThat(item.get("ttl").n()).isEqualTo(Long.toString(expMillis / 1000 + 1));
        assertThat(item.get("lease").n()).isEqualTo(Long.toString(clock.millis() + LEASE.toMillis()));
        assertThat(item.get("st").s()).isEqualTo("I");
        assertThat(item).doesNotContainKey("out");

        store.complete(key("a"), 5, new byte[] {9}, TTL);
        item = rawItem(store, key("a"));
        assertThat(item.get("st").s()).isEqualTo("C");
        assertThat(item.get("out").b().asByteArray()).containsExactly(9);
        assertThat(item).doesNotContainKey("lease");
    }

    @Test
    void leaseRunsOutOnTheExactMillisecondNotTheSecond() {
        store.claim(key("a"), new byte[] {1}, 1, Duration.ofMillis(1500), TTL);
        clock.advance(Duration.ofMillis(1499));
        assertThat(store.claim(key("a"), new byte[] {1}, 2, LEASE, TTL).status()).isEqualTo(Status.EXISTING);
        clock.advance(Duration.ofMillis(1));
        assertThat(store.claim(key("a"), new byte[] {1}, 3, LEASE, TTL).status()).isEqualTo(Status.TAKEN_OVER);
    }

    @Test
    void extendingALeasePastTheTtlMovesTheExpiryToo() {
        store.claim(key("a"), new byte[] {1}, 1, LEASE, Duration.ofMinutes(1));
        Instant deadline = store.extendLease(key("a"), 1, Duration.ofMinutes(10)).orElseThrow();
        assertThat(deadline).isEqualTo(clock.instant().plus(Duration.ofMinutes(10)));
        StoredRecord rec = store.find(key("a")).orElseThrow();
        assertThat(rec.leaseExpiresAt()).isEqualTo(deadline);
        assertThat(rec.expiresAt()).isEqualTo(deadline);
        assertThat(rawItem(store, key("a")).get("ttl").n())
                .isEqualTo(Long.toString(ItemCodec.ttlSeconds(deadline.toEpochMilli())));
        clock.advance(Duration.ofMinutes(5));
        assertThat(store.find(key("a"))).isPresent();
        assertThat(store.extendLease(key("a"), 2, Duration.ofMinutes(10))).isEmpty();
    }

    @Test
    void anOutcomeOverTheLimitIsRejectedBeforeAnythingIsWritten() {
        store.claim(key("a"), new byte[] {1}, 1, LEASE, TTL);
        byte[] tooBig = new byte[store.maxOutcomeBytes() + 1];
        assertThatThrownBy(() -> store.complete(key("a"), 1, tooBig, TTL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Integer.toString(tooBig.length))
                .hasMessageContaining(Integer.toString(store.maxOutcomeBytes()));
        StoredRecord rec = store.find(key("a")).orElseThrow();
        assertThat(rec.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(store.capabilities().maxOutcomeBytes()).isEqualTo(DynamoDbIdempotencyStore.DEFAULT_MAX_OUTCOME_BYTES);
        assertThat(store.capabilities().nativeExpiry()).isTrue();
        assertThat(store.capabilities().serverClock()).isFalse();
    }

    @Test
    void theDefaultLimitFitsWithTheLongestKeyAndFingerprintForOutcomesAndJournals() {
        DynamoDbIdempotencyStore s = store;
        // 3 UTF-8 bytes per character: the largest key the API admits (digested), and a full
        // journal while in progress, then a full outcome.
        IdempotencyKey k = IdempotencyKey.of("\u20ac".repeat(IdempotencyKey.MAX_SCOPE_LENGTH - 1) + scope.charAt(5),
                "\u20ac".repeat(IdempotencyKey.MAX_SCOPE_LENGTH), "k".repeat(IdempotencyKey.MAX_KEY_LENGTH));
        byte[] fp = new byte[DynamoDbIdempotencyStore.MAX_FINGERPRINT_BYTES];
        new Random(1).nextBytes(fp);
        byte[] outcome = new byte[s.maxOutcomeBytes()];
        new Random(2).nextBytes(outcome);
        long token = new Random().nextLong();
        s.claim(k, fp, token, LEASE, TTL);
        assertThat(s.checkpoint(k, token, outcome)).isTrue();
        assertThat(s.find(k).orElseThrow().journal()).isEqualTo(outcome);
        assertThat(s.complete(k, token, outcome, TTL)).isTrue();
        assertThat(s.find(k).orElseThrow().outcome()).isEqualTo(outcome);
    }

    @Test
    void anItemDynamoDbRejectsForItsSizeIsAClearErrorAndLeavesTheRecordAlone() {
        DynamoDbIdempotencyStore loose = DynamoDbIdempotencyStore.builder().client(DynamoDbStoreFixture.client())
                .tableName(table).clock(clock).maxOutcomeBytes(DynamoDbIdempotencyStore.DYNAMODB_ITEM_LIMIT).build();
        loose.claim(key("a"), new byte[32], 1, LEASE, TTL);
        byte[] outcome = new byte[DynamoDbIdempotencyStore.DYNAMODB_ITEM_LIMIT];
        assertThatThrownBy(() -> loose.complete(key("a"), 1, outcome, TTL))
                .isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.retryable()).isFalse())
                .hasMessageContaining("400 KB item limit")
                .hasMessageContaining("nothing was written");
        StoredRecord rec = loose.find(key("a")).orElseThrow();
        assertThat(rec.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(loose.complete(key("a"), 1, new byte[] {1}, TTL)).isTrue();
    }

    @Test
    void oversizedFingerprintAndBadDurationsAreRejectedAndNothingIsStored() {
        byte[] fp = new byte[DynamoDbIdempotencyStore.MAX_FINGERPRINT_BYTES + 1];
        assertThatThrownBy(() -> store.claim(key("a"), fp, 1, LEASE, TTL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fingerprint");
        assertThatThrownBy(() -> store.claim(key("a"), new byte[1], 1, Duration.ZERO, TTL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
        assertThatThrownBy(() -> store.claim(key("a"), new byte[1], 1, LEASE, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
        assertThatThrownBy(() -> store.claim(key("a"), null, 1, LEASE, TTL))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("fingerprint");
        assertThat(store.find(key("a"))).isEmpty();
    }

    @Test
    void theLongestKeysFitThePartitionKeyUndigestedAndStayDistinct() {
        DynamoDbIdempotencyStore s = store;
        String longScope = scope + "\u4e2d".repeat(IdempotencyKey.MAX_SCOPE_LENGTH - scope.length());
        String op = "\u4e2d".repeat(IdempotencyKey.MAX_SCOPE_LENGTH);
        IdempotencyKey a = IdempotencyKey.of(longScope, op, "a".repeat(IdempotencyKey.MAX_KEY_LENGTH));
        IdempotencyKey b = IdempotencyKey.of(longScope, op, "a".repeat(IdempotencyKey.MAX_KEY_LENGTH - 1) + "b");
        ItemCodec codec = new ItemCodec("t");
        // 1,455 UTF-8 bytes at most: under the 2,048 of a partition key, so never digested.
        assertThat(codec.encodedId(a)).doesNotStartWith("#").isNotEqualTo(codec.encodedId(b));
        assertThat(s.claim(a, new byte[] {1}, 1, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);
        assertThat(s.claim(b, new byte[] {1}, 2, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);
        assertThat(s.complete(a, 1, "A".getBytes(StandardCharsets.UTF_8), TTL)).isTrue();
        assertThat(s.find(b).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(s.find(a).orElseThrow().outcome()).isEqualTo("A".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void anUnreadableItemIsAStoreFailureNeverAnAbsentRecord() {
        ItemCodec codec = new ItemCodec(table);
        Map<String, AttributeValue> item = new java.util.HashMap<>(codec.primaryKey(key("bad")));
        item.put("st", AttributeValue.fromS("Z"));
        item.put("exp", AttributeValue.fromN(Long.toString(clock.millis() + 60_000)));
        DynamoDbStoreFixture.client().putItem(b -> b.tableName(table).item(item));
        assertThatThrownBy(() -> store.find(key("bad")))
                .isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.retryable()).isFalse())
                .hasMessageContaining("unreadable record");
        assertThatThrownBy(() -> store.claim(key("bad"), new byte[] {1}, 1, LEASE, TTL))
                .isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void aMissingTableIsANonRetryableStoreFailure() {
        DynamoDbIdempotencyStore s = DynamoDbIdempotencyStore.builder().client(DynamoDbStoreFixture.client())
                .tableName("idem-no-such-table").clock(clock).build();
        assertThatThrownBy(() -> s.claim(key("a"), new byte[] {1}, 1, LEASE, TTL))
                .isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.retryable()).isFalse())
                .hasMessageContaining("idem-no-such-table")
                .hasMessageContaining("table not found");
        assertThatThrownBy(() -> s.find(key("a"))).isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void anUnreachableEndpointIsARetryableStoreFailure() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        try (DynamoDbClient dead = DynamoDbLocal.builder().endpointOverride(URI.create("http://127.0.0.1:" + port))
                .overrideConfiguration(c -> c.retryStrategy(RetryMode.STANDARD).apiCallTimeout(Duration.ofSeconds(20)))
                .build()) {
            DynamoDbIdempotencyStore s = DynamoDbIdempotencyStore.builder().client(dead).tableName(table).clock(clock)
                    .build();
            assertThatThrownBy(() -> s.claim(key("a"), new byte[] {1}, 1, LEASE, TTL))
                    .isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.retryable()).isTrue())
                    .hasMessageContaining("unreachable");
            assertThatThrownBy(() -> s.complete(key("a"), 1, new byte[] {1}, TTL))
                    .isInstanceOf(StoreUnavailableException.class);
        }
        assertThat(store.find(key("a"))).isEmpty();
    }

    @Test
    void theStoreNeverClosesAClientItWasGiven() {
        store.close();
        assertThat(store.find(key("still-open"))).isEmpty();
    }

    @Test
    void builderRejectsBadSettingsAtOnce() {
        DynamoDbIdempotencyStore.Builder b = DynamoDbIdempotencyStore.builder();
        assertThatThrownBy(() -> b.tableName("x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'x'");
        assertThatThrownBy(() -> b.tableName("bad name!")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.maxOutcomeBytes(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
        assertThatThrownBy(() -> b.maxOutcomeBytes(DynamoDbIdempotencyStore.DYNAMODB_ITEM_LIMIT + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.client(null)).isInstanceOf(NullPointerException.class).hasMessage("client");
        assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class).hasMessageContaining("client");
        assertThatThrownBy(() -> b.client(DynamoDbStoreFixture.client()).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("tableName");
    }
}
