package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.StoredRecord;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;
import redis.embedded.RedisServer;

/**
 * The claim of a completed record (a replay) is answered before the script reads the server
 * clock: on a server of its own, so that the server's count of {@code TIME} calls (which counts
 * calls made inside scripts) is this test's alone. The answer is the record as {@code find}
 * reads it, at a store time taken from the key's own TTL; a first claim, the control, does read
 * the clock, and a damaged completed hash still gets the full path's verdict.
 */
@Timeout(60)
class RedisReplayClaimTest {
    private static final Duration LEASE = Duration.ofSeconds(20);
    private static final Duration TTL = Duration.ofHours(1);
    private static final byte[] FP = {1, 2, 3};
    private static final byte[] OUTCOME = "Sreplayed".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private int port;
    private RedisServer server;
    private Jedis admin;
    private RedisScriptClient client;
    private RedisIdempotencyStore store;

    @BeforeEach
    void start() {
        port = EmbeddedRedis.freePort();
        server = EmbeddedRedis.server(port, false);
        admin = EmbeddedRedis.admin(port);
        client = Client.JEDIS.ownClient(port);
        store = RedisIdempotencyStore.create(client);
    }

    @AfterEach
    void stop() throws IOException {
        admin.close();
        client.close();
        server.stop();
    }

    private long timeCalls() {
        for (String line : admin.info("commandstats").split("\r\n")) {
            if (line.startsWith("cmdstat_time:")) {
                return Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
            }
        }
        return 0;
    }

    private static Instant serverTime(Jedis j) {
        List<String> t = j.time();
        return Instant.ofEpochSecond(Long.parseLong(t.get(0)), Long.parseLong(t.get(1)) * 1000);
    }

    @Test
    void aReplayIsAnsweredWithoutReadingTheClockAndMatchesTheStoredRecord() {
        IdempotencyKey key = IdempotencyKey.of("replay-" + UUID.randomUUID(), "op", "k");
        long before = timeCalls();
        assertThat(store.claim(key, FP, 7, LEASE, TTL).claimed()).isTrue();
        assertThat(timeCalls()).as("a first claim reads the server clock").isGreaterThan(before);
        assertThat(store.complete(key, 7, OUTCOME, TTL)).isTrue();
        StoredRecord stored = store.find(key).orElseThrow();

        // A replay's store time is the record's expiry less the key's PTTL: whole milliseconds,
        // and the key's expiry was set relative to the write's own clock reading, which Redis may
        // apply from the script's start, a little before its reading. So it may read a
        // millisecond or two either side of TIME.
        Instant from = serverTime(admin).minusMillis(3);
        long clockReads = timeCalls();
        ClaimResult same = store.claim(key, FP, 8, LEASE, TTL);
        ClaimResult other = store.claim(key, new byte[] {9}, 9, LEASE, TTL);
        assertThat(timeCalls()).as("a replay's claim reads no clock").isEqualTo(clockReads);
        Instant to = serverTime(admin).plusMillis(3);

        for (ClaimResult r : List.of(same, other)) {
            assertThat(r.status()).isEqualTo(Status.EXISTING);
            StoredRecord got = r.record();
            assertThat(got.state()).isEqualTo(stored.state());
            assertThat(got.fingerprint()).isEqualTo(FP);
            assertThat(got.fencingToken()).isEqualTo(7);
            assertThat(got.attempt()).isEqualTo(stored.attempt());
            assertThat(got.outcome()).isEqualTo(OUTCOME);
            assertThat(got.createdAt()).isEqualTo(stored.createdAt());
            assertThat(got.expiresAt()).isEqualTo(stored.expiresAt());
            assertThat(r.storeTime()).isBetween(from, to).isBefore(got.expiresAt());
        }
    }

    @Test
    void aDamagedCompletedHashStillGetsTheFullPathsVerdict() {
        IdempotencyKey key = IdempotencyKey.of("damaged-" + UUID.randomUUID(), "op", "k");
        assertThat(store.claim(key, FP, 7, LEASE, TTL).claimed()).isTrue();
        assertThat(store.complete(key, 7, OUTCOME, TTL)).isTrue();
        String hash = admin.keys("*").stream().filter(k -> !k.isEmpty()).findFirst().orElseThrow();
        admin.hdel(hash, "a");

        long clockReads = timeCalls();
        assertThatThrownBy(() -> store.claim(key, FP, 8, LEASE, TTL)).hasMessageContaining("not an idem record");
        assertThat(timeCalls()).as("the full path judged it").isGreaterThan(clockReads);
    }
}
