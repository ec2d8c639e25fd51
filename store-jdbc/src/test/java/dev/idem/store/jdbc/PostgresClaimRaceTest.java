package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.testsupport.MutableClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * PostgreSQL's claim is one upsert, which sees the newest committed row even when a writer
 * committed after the statement began. The previous row it reports must be that same row:
 * the store test kit once saw a claim report a takeover of a lease that the stale holder had
 * released a moment before (its release rightly answered true), because the claim read the
 * previous row from its snapshot. Here the writer is held at that moment deterministically.
 */
@Timeout(120)
class PostgresClaimRaceTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);
    private static final byte[] FP = {7};

    private final MutableClock clock = new MutableClock();
    private final JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(Backend.POSTGRES.dataSource())
            .clock(clock).build();

    @Test
    void aClaimThatWaitedForAReleaseReportsTheReleasedRowNotATakeover() throws Exception {
        IdempotencyKey key = IdempotencyKey.of("pg-race-" + UUID.randomUUID(), "charge", "k");
        assertThat(store.claim(key, FP, 1L, LEASE, TTL).claimed()).isTrue();
        clock.advance(LEASE.plusSeconds(1));

        try (Connection releaser = Backend.POSTGRES.otherDataSource().getConnection()) {
            releaser.setAutoCommit(false);
            // The stale holder's release, held open: it has the row locked, not yet committed.
            try (PreparedStatement ps = releaser.prepareStatement("UPDATE idem_record SET state = 'R'"
                    + " WHERE scope = ? AND operation = ? AND idem_key = ? AND token = 1")) {
                ps.setString(1, key.scope());
                ps.setString(2, key.operation());
                ps.setString(3, key.key());
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            CompletableFuture<ClaimResult> claim = CompletableFuture.supplyAsync(
                    () -> store.claim(key, FP, 2L, LEASE, TTL));
            awaitBlockedOnARowLock(releaser);
            releaser.commit();

            ClaimResult result = claim.get(60, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(ClaimResult.Status.ACQUIRED);
            assertThat(result.record().fencingToken()).isEqualTo(2L);
            assertThat(result.record().attempt()).isEqualTo(2);
        }
        assertThat(store.find(key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    }

    /** Waits (bounded) until another session waits for a lock that {@code holder} has. */
    private static void awaitBlockedOnARowLock(Connection holder) throws Exception {
        int pid;
        try (ResultSet rs = holder.createStatement().executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            pid = rs.getInt(1);
        }
        try (Connection watcher = Backend.POSTGRES.dataSource().getConnection();
                PreparedStatement ps = watcher.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                        + " WHERE ? = ANY(pg_blocking_pids(pid))")) {
            ps.setInt(1, pid);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
                Thread.onSpinWait();
            }
        }
        throw new AssertionError("the claim never waited for the release's row lock");
    }
}
