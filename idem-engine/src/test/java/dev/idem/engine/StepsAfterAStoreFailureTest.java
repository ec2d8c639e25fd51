package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Once a step's effect may have happened but the store failed before it was on record, the
 * execution runs no further step, even if the work catches the failure and the store is back:
 * a later step could build on an effect the journal does not hold. Shown for an at-most-once
 * step whose lease renewal fails right after its start marker (its action never runs), and for
 * one whose interrupted start is reconciled as happened but whose result cannot be journaled.
 * And an atomic step whose own transaction committed but whose commit cannot be read back keeps
 * the key held for its whole lease instead of handing it back, since its entry may be on record.
 */
@Timeout(60)
class StepsAfterAStoreFailureTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private final AtomicInteger wired = new AtomicInteger();
    private final AtomicInteger after = new AtomicInteger();
    private final List<Exception> seen = new ArrayList<>();

    /** The memory store, whose checkpoints and lease renewals can be failed, with a hook after each checkpoint. */
    private final class Flaky extends ForwardingIdempotencyStore {
        volatile Runnable afterCheckpoint = () -> { };
        volatile boolean checkpointDown;
        volatile boolean extendDown;
        volatile boolean findDown;

        Flaky() {
            super(memory);
        }

        @Override
        public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            if (checkpointDown) {
                throw new StoreUnavailableException("store down (injected)", null, false);
            }
            boolean saved = super.checkpoint(key, fencingToken, journal);
            afterCheckpoint.run();
            return saved;
        }

        @Override
        public Optional<StoredRecord> find(IdempotencyKey key) {
            if (findDown) {
                throw new StoreUnavailableException("store down (injected)", null, false);
            }
            return super.find(key);
        }

        @Override
        public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
            if (extendDown) {
                throw new StoreUnavailableException("store down (injected)", null, false);
            }
            return super.extendLease(key, fencingToken, lease);
        }
    }

    private IdempotencyEngine engine(IdempotencyStore store) {
        return IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).sleeper(nanos -> { })
                .lease(LEASE).build();
    }

    private String afterStep(ExecutionContext ctx) throws Exception {
        return ctx.step("after", String.class, () -> "a" + after.incrementAndGet());
    }

    @Test
    void aRenewalThatFailsAfterTheStartMarkerStopsTheExecution() {
        Flaky flaky = new Flaky();
        IdempotencyKey k = IdempotencyKey.of("tenant", "transfer", "renewal");
        Work<String> work = ctx -> {
            // The lease lapses while the marker is written, and the renewal that follows fails.
            flaky.afterCheckpoint = () -> {
                clock.advance(LEASE.plusMillis(1));
                flaky.extendDown = true;
            };
            try {
                ctx.atMostOnceStep("wire", String.class, () -> "w" + wired.incrementAndGet(),
                        s -> Reconciliation.didNotHappen());
            } catch (StoreUnavailableException e) {
                seen.add(e);
            }
            flaky.afterCheckpoint = () -> { };
            flaky.extendDown = false;
            return afterStep(ctx);
        };
        assertThatThrownBy(() -> engine(flaky).execute(k, "{}", String.class, work))
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(seen).hasSize(1);
        assertThat(wired).as("the action never ran").hasValue(0);
        assertThat(after).as("no later step ran").hasValue(0);
    }

    @Test
    void aHappenedResultThatCannotBeJournaledStopsTheExecution() {
        IdempotencyKey k = IdempotencyKey.of("tenant", "transfer", "happened");
        boolean[] cut = {false};
        IdempotencyStore dying = new ForwardingIdempotencyStore(memory) {
            @Override
            protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
                if (cut[0]) {
                    throw new StoreUnavailableException("connection cut: the worker died", null);
                }
                return call.get();
            }
        };
        assertThatThrownBy(() -> engine(dying).execute(k, "{}", String.class, ctx -> ctx.atMostOnceStep("wire",
                String.class, () -> {
                    cut[0] = true;
                    throw new AtMostOnceStepsTest.Died();
                }, s -> Reconciliation.didNotHappen()))).isInstanceOf(AtMostOnceStepsTest.Died.class);
        clock.advance(LEASE.plusMillis(1));

        Flaky flaky = new Flaky();
        Work<String> work = ctx -> {
            flaky.checkpointDown = true;
            try {
                ctx.atMostOnceStep("wire", String.class, () -> "w" + wired.incrementAndGet(),
                        s -> Reconciliation.happened("w-found"));
            } catch (StoreUnavailableException e) {
                seen.add(e);
            }
            flaky.checkpointDown = false;
            return afterStep(ctx);
        };
        assertThatThrownBy(() -> engine(flaky).execute(k, "{}", String.class, work))
                .isInstanceOf(StoreUnavailableException.class);
        assertThat(seen).hasSize(1);
        assertThat(wired).as("a happened step is never run again").hasValue(0);
        assertThat(after).as("no later step ran").hasValue(0);
    }

    @Test
    void anAtomicStepWhoseCommitCannotBeReadBackKeepsTheKeyHeld() {
        Flaky flaky = new Flaky();
        IdempotencyKey k = IdempotencyKey.of("tenant", "transfer", "atomic");
        Instant claimed = clock.instant();
        Work<String> work = ctx -> ctx.atomicStep("charge", String.class, cp -> {
            memory.checkpoint(ctx.key(), cp.fencingToken(), cp.journalWith("charged"));
            flaky.findDown = true;
            return "charged";
        });
        assertThatThrownBy(() -> engine(flaky).execute(k, "{}", String.class, work))
                .isInstanceOf(StoreUnavailableException.class);
        StoredRecord r = memory.find(k).orElseThrow();
        assertThat(r.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(r.leaseExpiresAt()).isEqualTo(claimed.plus(LEASE));
    }
}
