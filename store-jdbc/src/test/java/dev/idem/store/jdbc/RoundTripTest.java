package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The "each operation is one round trip": on PostgreSQL and MySQL/MariaDB every
 * claim outcome (acquired, existing, taken over, re-acquired after a release), every lease
 * extension and every checkpoint by the holder sends exactly one statement and no commit,
 * rollback or session change. The calls are counted at the JDBC boundary by {@link WireCounter}; on MariaDB the server's own
 * per-session {@code Questions} counter (statements received from the client, not those run
 * inside a stored procedure) confirms the count.
 */
@Timeout(60)
class RoundTripTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final byte[] FP = {1, 2, 3};

    private final String scope = "wire-" + UUID.randomUUID();

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"POSTGRES", "MARIADB"})
    void everyClaimOutcomeAndLeaseExtensionIsOneStatementOnTheWire(Backend backend) throws Exception {
        try (Connection physical = backend.dataSource().getConnection()) {
            Wire wire = new Wire(backend, physical);
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(wire.counter.dataSource())
                    .dialect(backend.dialect).build();

            IdempotencyKey fresh = IdempotencyKey.of(scope, "op", "fresh");
            ClaimResult acquired = wire.once(() -> store.claim(fresh, FP, 11L, LEASE, TTL));
            assertThat(acquired.status()).isEqualTo(ClaimResult.Status.ACQUIRED);

            ClaimResult busy = wire.once(() -> store.claim(fresh, new byte[] {9}, 12L, LEASE, TTL));
            assertThat(busy.status()).isEqualTo(ClaimResult.Status.EXISTING);
            assertThat(busy.record().fencingToken()).isEqualTo(11L);

            assertThat(wire.once(() -> store.extendLease(fresh, 11L, LEASE))).isPresent();
            assertThat(wire.once(() -> store.extendLease(fresh, 12L, LEASE))).isEmpty();

            // A step's journal: one statement, and a repeat of the same bytes too.
            assertThat(wire.once(() -> store.checkpoint(fresh, 11L, new byte[] {5}))).isTrue();
            assertThat(wire.once(() -> store.checkpoint(fresh, 11L, new byte[] {5}))).isTrue();

            assertThat(wire.once(() -> store.complete(fresh, 11L, new byte[] {42}, TTL))).isTrue();
            ClaimResult replay = wire.once(() -> store.claim(fresh, FP, 13L, LEASE, TTL));
            assertThat(replay.status()).isEqualTo(ClaimResult.Status.EXISTING);
            assertThat(replay.record().outcome()).containsExactly(42);

            IdempotencyKey lapsed = IdempotencyKey.of(scope, "op", "lapsed");
            wire.once(() -> store.claim(lapsed, FP, 21L, Duration.ofMillis(200), TTL));
            Thread.sleep(400);
            ClaimResult takenOver = wire.once(() -> store.claim(lapsed, FP, 22L, LEASE, TTL));
            assertThat(takenOver.status()).isEqualTo(ClaimResult.Status.TAKEN_OVER);
            assertThat(takenOver.record().attempt()).isEqualTo(2);

            IdempotencyKey released = IdempotencyKey.of(scope, "op", "released");
            wire.once(() -> store.claim(released, FP, 31L, LEASE, TTL));
            assertThat(wire.once(() -> store.release(released, 31L))).isTrue();
            ClaimResult again = wire.once(() -> store.claim(released, FP, 32L, LEASE, TTL));
            assertThat(again.status()).isEqualTo(ClaimResult.Status.ACQUIRED);
            assertThat(again.record().attempt()).isEqualTo(2);
        }
    }

    /** Runs operations on the counted connection and checks that each sent exactly one statement. */
    private static final class Wire {
        final WireCounter counter;
        private final Backend backend;
        private final Connection physical;
        private final long questionsOverhead;

        Wire(Backend backend, Connection physical) throws SQLException {
            this.backend = backend;
            this.physical = physical;
            this.counter = new WireCounter(physical);
            if (backend == Backend.MARIADB) {
                long a = questions();
                long b = questions();
                questionsOverhead = b - a;
            } else {
                questionsOverhead = 0;
            }
        }

        <T> T once(Supplier<T> operation) {
            long before = serverCount();
            counter.reset();
            T result = operation.get();
            List<String> calls = counter.calls();
            assertThat(calls).as("JDBC calls reaching the server").hasSize(1);
            assertThat(calls.get(0)).as("the one call").startsWith("execute");
            if (backend == Backend.MARIADB) {
                assertThat(serverCount() - before - questionsOverhead)
                        .as("statements the MariaDB server received (session status Questions), for %s", calls)
                        .isEqualTo(1);
            }
            return result;
        }

        private long serverCount() {
            try {
                return backend == Backend.MARIADB ? questions() : 0;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        private long questions() throws SQLException {
            try (Statement s = physical.createStatement();
                    ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE 'Questions'")) {
                rs.next();
                return rs.getLong(2);
            }
        }
    }
}
