package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * PostgreSQL's statement timeout is the connection's network timeout while the store's
 * statement runs: a claim stuck behind a row lock fails retryably once it passes, the store
 * goes on with other connections, and the connection's own setting is given back.
 */
@Timeout(60)
class PostgresStatementTimeoutTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final byte[] FP = {7};
    private static final Executor DIRECT = Runnable::run;

    private final String scope = "pg-timeout-" + UUID.randomUUID();

    @Test
    void aClaimStuckBehindARowLockFailsRetryablyAfterTheTimeoutAndTheStoreCarriesOn() throws Exception {
        IdempotencyKey key = IdempotencyKey.of(scope, "op", "locked");
        assertThat(Backend.POSTGRES.store().claim(key, FP, 1L, LEASE, TTL).claimed()).isTrue();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(Backend.POSTGRES.dataSource())
                .dialect(JdbcDialect.POSTGRESQL).queryTimeout(Duration.ofSeconds(1)).build();

        try (Connection blocker = Backend.POSTGRES.otherDataSource().getConnection()) {
            blocker.setAutoCommit(false);
            try (PreparedStatement lock = blocker.prepareStatement("SELECT token FROM idem_record"
                    + " WHERE scope = ? AND operation = ? AND idem_key = ? FOR UPDATE")) {
                lock.setString(1, key.scope());
                lock.setString(2, key.operation());
                lock.setString(3, key.key());
                try (ResultSet rs = lock.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                }
            }
            assertThatThrownBy(() -> store.claim(key, FP, 2L, LEASE, TTL))
                    .isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.retryable()).isTrue());
            blocker.rollback();
        }
        assertThat(store.find(key).orElseThrow().fencingToken()).isEqualTo(1L);
        IdempotencyKey other = IdempotencyKey.of(scope, "op", "free");
        assertThat(store.claim(other, FP, 3L, LEASE, TTL).claimed()).isTrue();
    }

    @Test
    void theConnectionKeepsItsOwnNetworkTimeoutAndATighterOneWins() throws Exception {
        try (Connection physical = Backend.POSTGRES.dataSource().getConnection()) {
            int pooled = physical.getNetworkTimeout();
            try {
                JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(new WireCounter(physical).dataSource())
                        .dialect(JdbcDialect.POSTGRESQL).queryTimeout(Duration.ofSeconds(5)).build();
                IdempotencyKey key = IdempotencyKey.of(scope, "op", "restored");
                for (int own : new int[] {0, 60_000, 500}) {
                    physical.setNetworkTimeout(DIRECT, own);
                    store.claim(key, FP, 4L, LEASE, TTL);
                    store.find(key);
                    assertThat(store.complete(key, 4L, new byte[] {1}, TTL)).isTrue();
                    assertThat(physical.getNetworkTimeout()).as("after a statement with %d ms set", own).isEqualTo(own);
                }
            } finally {
                physical.setNetworkTimeout(DIRECT, pooled);
            }
        }
    }
}
