package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import java.time.Duration;
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
    void purgeDeletesOnlyExpiredRowsInBoundedBatches(Backend backend) throws Exception {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(backend.dataSource()).tableName(TABLE).build()
                .createTableIfNotExists();
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        // This table is the test's own, so counts are exact.
        jdbi.useHandle(h -> h.execute("DELETE FROM " + TABLE));
        String scope = "purge-" + UUID.randomUUID();
        Duration shortTtl = Duration.ofMillis(300);
        for (int i = 0; i < 7; i++) {
            IdempotencyKey k = IdempotencyKey.of(scope, "op", "done" + i);
            store.claim(k, new byte[] {1}, i, Duration.ofMillis(100), shortTtl);
            assertThat(store.complete(k, i, new byte[] {1}, shortTtl)).isTrue();
        }
        for (int i = 0; i < 2; i++) {
            // Abandoned claims expire too.
            store.claim(IdempotencyKey.of(scope, "op", "abandoned" + i), new byte[] {1}, 100 + i,
                    Duration.ofMillis(100), shortTtl);
        }
        for (int i = 0; i < 3; i++) {
            IdempotencyKey k = IdempotencyKey.of(scope, "op", "live" + i);
            store.claim(k, new byte[] {1}, 200 + i, Duration.ofMillis(100), Duration.ofHours(1));
            store.complete(k, 200 + i, new byte[] {2}, Duration.ofHours(1));
        }
        Thread.sleep(shortTtl.plusMillis(150).toMillis());

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
