package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.store.jdbc.Charges.Charge;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Multi-step work in the transactional mode: a step's business write and its journal entry commit
 * together ({@link JdbcIdempotencyStore#checkpointInTransaction}), and a stale token rolls
 * both back.
 */
@Timeout(60)
class StepTransactionTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofHours(1);

    private final String scope = "step-" + UUID.randomUUID();

    private static byte[] journal(Charge c) {
        return ("charged:" + c.id()).getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aStepsWriteAndItsJournalEntryCommitTogetherAndAStaleTokenRollsBothBack(Backend backend) {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore store = backend.store();
        IdempotencyKey key = IdempotencyKey.of(scope, "charge", "k");
        assertThat(store.claim(key, new byte[] {1}, 1L, LEASE, TTL).claimed()).isTrue();

        Charge charge = store.checkpointInTransaction(key, 1L, StepTransactionTest::journal,
                h -> Charges.insert(h, key, 10, "step"));
        assertThat(store.find(key).orElseThrow().journal()).isEqualTo(journal(charge));
        assertThat(charges.workers(key)).containsExactly("step");

        assertThatThrownBy(() -> store.checkpointInTransaction(key, 2L, StepTransactionTest::journal,
                h -> Charges.insert(h, key, 10, "stale"))).isInstanceOf(LeaseLostException.class);
        assertThat(charges.workers(key)).containsExactly("step");
        assertThat(store.find(key).orElseThrow().journal()).isEqualTo(journal(charge));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void checkpointWithinTheCallersTransactionRollsBackWithIt(Backend backend) {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore store = backend.store();
        IdempotencyKey key = IdempotencyKey.of(scope, "charge", "within");
        assertThat(store.claim(key, new byte[] {1}, 1L, LEASE, TTL).claimed()).isTrue();

        try (Handle h = Jdbi.create(backend.dataSource()).open()) {
            h.begin();
            Charge c = Charges.insert(h, key, 10, "rolled-back");
            assertThat(store.checkpointWithin(h, key, 1L, journal(c))).isTrue();
            h.rollback();
        }
        assertThat(store.find(key).orElseThrow().journal()).isNull();
        assertThat(charges.workers(key)).isEmpty();
        try (Handle h = Jdbi.create(backend.dataSource()).open()) {
            h.begin();
            assertThat(store.checkpointWithin(h, key, 9L, new byte[] {1})).isFalse();
            h.rollback();
        }
    }
}
