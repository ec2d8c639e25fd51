package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * PostgreSQL's statement timeout is the connection's network timeout while the store's
 * statement runs: a claim stuck behind a row lock fails retryably once it passes, the store
 * goes on with other connections, and the connection's own setting is given back. A claim
 * that must write the row (an expired record) waits for the lock; one that meets a live record
 * is answered from its statement's snapshot and does not wait.
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
        JdbcIdempotencyStore now = Backend.POSTGRES.store();
        assertThat(now.claim(key, FP, 1L, LEASE, TTL).claimed()).isTrue();
        // An hour ahead the record has expired, so this store's claim must lock the row and take it
        // over; a live record is answered from the statement's snapshot without waiting for the lock.
        JdbcIdempotencyStore later = JdbcIdempotencyStore.builder(Backend.POSTGRES.dataSource())
                .dialect(JdbcDialect.POSTGRESQL).queryTimeout(Duration.ofSeconds(1))
                .clock(Clock.offset(Clock.systemUTC(), Duration.ofHours(1))).build();
        JdbcIdempotencyStore live = JdbcIdempotencyStore.builder(Backend.POSTGRES.dataSource())
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
            assertThatThrownBy(() -> later.claim(key, FP, 2L, LEASE, TTL))
                    .isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.retryable()).isTrue());
            ClaimResult held = live.claim(key, FP, 3L, LEASE, TTL);
            assertThat(held.status()).isEqualTo(ClaimResult.Status.EXISTING);
            assertThat(held.record().fencingToken()).isEqualTo(1L);
            // The timed-out claim's statement still waits on the server (the timeout only gave up
            // on the answer) and would take the expired row over once the lock goes: the holder
            // completes it for two hours more, so the claim, judging the row it then locks, writes
            // nothing.
            try (PreparedStatement complete = blocker.prepareStatement("UPDATE idem_record SET state = 'C',"
                    + " outcome = ?, lease_until = NULL, expires_at = expires_at + 7200000"
                    + " WHERE scope = ? AND operation = ? AND idem_key = ?")) {
                complete.setBytes(1, new byte[] {1});
                complete.setString(2, key.scope());
                complete.setString(3, key.operation());
                complete.setString(4, key.key());
                assertThat(complete.executeUpdate()).isEqualTo(1);
            }
            blocker.commit();
        }
        assertThat(now.find(key).orElseThrow().fencingToken()).isEqualTo(1L);
        assertThat(later.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        IdempotencyKey other = IdempotencyKey.of(scope, "op", "free");
        assertThat(later.claim(other, FP, 4L, LEASE, TTL).claimed()).isTrue();
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
