package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One deployment, two client libraries: a record written through Jedis is read, fenced, completed
 * and released through Lettuce and the other way round, byte for byte, on a standalone server and
 * on the cluster (the key layout and the scripts are the same, whoever sends them).
 */
@Timeout(60)
class RedisCrossClientTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);

    private static byte[] everyByte() {
        byte[] b = new byte[256];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    private static void sameRecord(StoredRecord a, StoredRecord b) {
        assertThat(b.state()).isEqualTo(a.state());
        assertThat(b.fingerprint()).isEqualTo(a.fingerprint());
        assertThat(b.fencingToken()).isEqualTo(a.fencingToken());
        assertThat(b.attempt()).isEqualTo(a.attempt());
        assertThat(b.createdAt()).isEqualTo(a.createdAt());
        assertThat(b.leaseExpiresAt()).isEqualTo(a.leaseExpiresAt());
        assertThat(b.expiresAt()).isEqualTo(a.expiresAt());
        assertThat(b.outcome()).isEqualTo(a.outcome());
        assertThat(b.journal()).isEqualTo(a.journal());
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aRecordWrittenThroughOneClientIsReadAndFencedThroughTheOther(boolean cluster) {
        RedisIdempotencyStore jedis = RedisIdempotencyStore.create(Client.JEDIS.on(cluster, 0));
        RedisIdempotencyStore lettuce = RedisIdempotencyStore.create(Client.LETTUCE.on(cluster, 0));
        byte[] fp = everyByte();
        for (int i = 0; i < 8; i++) {
            // Alternate the writer, so both directions cover keys on every cluster master.
            RedisIdempotencyStore writer = i % 2 == 0 ? jedis : lettuce;
            RedisIdempotencyStore reader = i % 2 == 0 ? lettuce : jedis;
            IdempotencyKey k = IdempotencyKey.of("cross-" + UUID.randomUUID(), "op", "k" + i);

            ClaimResult claimed = writer.claim(k, fp, 100 + i, LEASE, TTL);
            assertThat(claimed.status()).isEqualTo(Status.ACQUIRED);
            assertThat(writer.checkpoint(k, 100 + i, everyByte())).isTrue();
            sameRecord(writer.find(k).orElseThrow(), reader.find(k).orElseThrow());
            assertThat(reader.claim(k, fp, 200 + i, LEASE, TTL).status()).isEqualTo(Status.EXISTING);
            // Fenced across clients: the reader's token is not the holder's, the writer's token is.
            assertThat(reader.complete(k, 200 + i, new byte[] {1}, TTL)).isFalse();
            assertThat(reader.extendLease(k, 100 + i, LEASE)).isPresent();
            assertThat(reader.release(k, 100 + i)).isTrue();

            ClaimResult again = writer.claim(k, fp, 300 + i, LEASE, TTL);
            assertThat(again.record().attempt()).isEqualTo(2);
            assertThat(again.record().journal()).isEqualTo(everyByte());
            assertThat(reader.complete(k, 300 + i, everyByte(), TTL)).isTrue();
            StoredRecord done = writer.find(k).orElseThrow();
            assertThat(done.state()).isEqualTo(RecordState.COMPLETED);
            assertThat(done.outcome()).isEqualTo(everyByte());
            sameRecord(done, reader.find(k).orElseThrow());
            assertThat(writer.claim(k, fp, 400 + i, LEASE, TTL).record().outcome()).isEqualTo(everyByte());
        }
    }
}
