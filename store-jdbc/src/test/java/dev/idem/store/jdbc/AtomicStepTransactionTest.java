package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.store.jdbc.Charges.Charge;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Multi-step work in the transactional mode, through the engine: {@code ctx.atomicStep} with
 * {@link JdbcIdempotencyStore#checkpointInTransaction}, so a step's business row and its
 * journal entry commit together. A worker killed inside the step's transaction leaves
 * neither, and a stale worker's step rolls back; either way one charge row per key.
 */
@Timeout(120)
class AtomicStepTransactionTest {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final String scope = "atomic-step-" + UUID.randomUUID();
    private final MutableClock clock = new MutableClock();

    /** A worker's death: nothing in the engine or the step catches it as a business failure. */
    private static final class WorkerDied extends Error {
        WorkerDied() {
            super("worker killed inside the step's transaction");
        }
    }

    private JdbcIdempotencyStore store(Backend backend) {
        return JdbcIdempotencyStore.builder(backend.dataSource()).clock(clock).build();
    }

    private IdempotencyEngine engine(JdbcIdempotencyStore store) {
        return IdempotencyEngine.builder().store(store).clock(clock).lease(LEASE).ttl(Duration.ofHours(1)).build();
    }

    /** The order's charge step: the charge row and the journal entry in one transaction. */
    private static Charge charge(JdbcIdempotencyStore store, ExecutionContext ctx, String worker, Runnable inTx)
            throws Exception {
        return ctx.atomicStep("charge", Charge.class, cp -> store.checkpointInTransaction(ctx.key(),
                cp.fencingToken(), cp::journalWith, h -> {
                    Charge c = Charges.insert(h, ctx.key(), 10, worker);
                    inTx.run();
                    return c;
                }));
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aWorkerKilledInsideTheStepsTransactionLeavesNoChargeAndTheRetryChargesOnce(Backend backend) {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore store = store(backend);
        IdempotencyEngine engine = engine(store);
        IdempotencyKey key = IdempotencyKey.of(scope, "order", "killed");
        Work<String> work = ctx -> {
            Charge c = charge(store, ctx, "w" + ctx.attempt(), () -> {
                if (ctx.attempt() == 1) {
                    throw new WorkerDied();
                }
            });
            return c.id();
        };

        assertThatThrownBy(() -> engine.execute(key, Map.of("order", 1), String.class, work))
                .isInstanceOf(WorkerDied.class);
        assertThat(charges.count(key)).isZero();
        // The step asked for its journal, so the key is handed back (its lease cut to 1 ms), not released.
        clock.advance(Duration.ofMillis(1));

        Result<String> retry = engine.execute(key, Map.of("order", 1), String.class, work);
        assertThat(charges.workers(key)).containsExactly("w2");
        assertThat(engine.execute(key, Map.of("order", 1), String.class, work).value()).isEqualTo(retry.value());
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aCommittedStepIsNotRunAgainWhenALaterStepFails(Backend backend) {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore store = store(backend);
        IdempotencyEngine engine = engine(store);
        IdempotencyKey key = IdempotencyKey.of(scope, "order", "later-fails");
        Work<String> work = ctx -> {
            Charge c = charge(store, ctx, "w" + ctx.attempt(), () -> { });
            ctx.step("ship", () -> {
                if (ctx.attempt() == 1) {
                    throw new IllegalStateException("carrier down");
                }
            });
            return c.worker();
        };

        assertThatThrownBy(() -> engine.execute(key, Map.of("order", 2), String.class, work))
                .hasMessage("carrier down");
        // A step is journaled: the key is handed back (its lease cut to 1 ms, its fingerprint kept).
        clock.advance(Duration.ofMillis(1));
        Result<String> retry = engine.execute(key, Map.of("order", 2), String.class, work);

        assertThat(retry.value()).isEqualTo("w1");
        assertThat(charges.workers(key)).containsExactly("w1");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aStaleWorkersStepRollsBackAndOnlyTheTakerOversChargeStands(Backend backend) {
        Charges charges = new Charges(backend.dataSource());
        JdbcIdempotencyStore store = store(backend);
        JdbcIdempotencyStore otherStore = JdbcIdempotencyStore.builder(backend.otherDataSource()).clock(clock).build();
        IdempotencyEngine engine = engine(store);
        IdempotencyEngine other = engine(otherStore);
        IdempotencyKey key = IdempotencyKey.of(scope, "order", "stale");
        String[] takeover = new String[1];
        Work<String> work = ctx -> charge(store, ctx, "stale", () -> {
            // The first worker stalls before its transaction commits; its lease lapses and a
            // second worker (another pool: another process) takes over and finishes the order.
            clock.advance(LEASE.plusSeconds(1));
            takeover[0] = other.execute(key, Map.of("order", 3), String.class,
                    c -> charge(otherStore, c, "taker", () -> { }).worker()).value();
        }).worker();

        assertThatThrownBy(() -> engine.execute(key, Map.of("order", 3), String.class, work))
                .isInstanceOf(LeaseLostException.class);

        assertThat(takeover[0]).isEqualTo("taker");
        assertThat(charges.workers(key)).containsExactly("taker");
        assertThat(engine.execute(key, Map.of("order", 3), String.class, work).value()).isEqualTo("taker");
    }
}
