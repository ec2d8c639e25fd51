package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** purgeExpired deletes expired rows only, at most {@code limit} per call. */
@Timeout(60)
class PurgeTest {
    private static final String TABLE = "idem_purge_test";

    @ParameterizedTest
    @EnumSource(Backend.class)
    void purgeDeletesOnlyExpiredRowsInBoundedBatches(Backend backend) {
        // A test clock: the records expire when the test says so, not when a loaded machine
        // happens to be slow between a claim and its completion.
        MutableClock clock = new MutableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(backend.dataSource()).tableName(TABLE).clock(clock)
                .build().createTableIfNotExists();
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        // This table is the test's own, so counts are exact.
        jdbi.useHandle(h -> h.execute("DELETE FROM " + TABLE));
        String scope = "purge-" + UUID.randomUUID();
        Duration shortTtl = Duration.ofMinutes(1);
        Duration lease = Duration.ofSeconds(30);
        for (int i = 0; i < 7; i++) {
            IdempotencyKey k = IdempotencyKey.of(scope, "op", "done" + i);
            store.claim(k, new byte[] {1}, i, lease, shortTtl);
            assertThat(store.complete(k, i, new byte[] {1}, shortTtl)).isTrue();
        }
        for (int i = 0; i < 2; i++) {
            // Abandoned claims expire too.
            store.claim(IdempotencyKey.of(scope, "op", "abandoned" + i), new byte[] {1}, 100 + i,
                    lease, shortTtl);
        }
        for (int i = 0; i < 3; i++) {
            IdempotencyKey k = IdempotencyKey.of(scope, "op", "live" + i);
            store.claim(k, new byte[] {1}, 200 + i, lease, Duration.ofHours(1));
            store.complete(k, 200 + i, new byte[] {2}, Duration.ofHours(1));
        }
        clock.advance(shortTtl);

        assertThat(store.purgeExpired(4)).isEqualTo(4);
        assertThat(store.purgeExpired(4)).isEqualTo(4);
        assertThat(store.purgeExpired(4)).isEqualTo(1);
        assertThat(store.purgeExpired(4)).isZero();

        int left = jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + TABLE).mapTo(Integer.class).one());
        assertThat(left).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(store.find(IdempotencyKey.of(scope, "op", "live" + i))).get()
                    .extracting(r -> r.outcome()).isEqualTo(new byte[] {2});
        }
    }
}
