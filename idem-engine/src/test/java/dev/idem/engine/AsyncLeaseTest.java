package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.ManualScheduler;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Pending asynchronous work and its lease: the heartbeat keeps a slow stage's lease, a process
 * whose heartbeat stopped (dead) lets a duplicate take over, a stage pending past
 * {@code maxPendingWork} stops being kept, and cancellation never frees a key whose effect may
 * still run. Two engines on one store stand for two processes; time is the store's simulated
 * clock, and each engine's timer runs only when the test says so.
 */
class AsyncLeaseTest {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
    private final ManualScheduler timerA = new ManualScheduler(ClockTicker.of(clock));
    private final ManualScheduler timerB = new ManualScheduler(ClockTicker.of(clock));
    private final AtomicInteger runs = new AtomicInteger();

    private IdempotencyEngine engine(ManualScheduler timer, Duration maxPending) {
        return IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).asyncExecutor(Runnable::run).leaseRenewalExecutor(Runnable::run)
                .scheduler(timer).lease(LEASE).maxPendingWork(maxPending).build();
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant-1", "create-charge", k);
    }

    private AsyncWork<String> pending(CompletableFuture<String> stage) {
        return ctx -> {
            runs.incrementAndGet();
            return stage;
        };
    }

    private AsyncWork<String> counted(String value) {
        return ctx -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(value);
        };
    }

    /** Moves time in steps of a few seconds, running each engine's due timer tasks, as live processes would. */
    private void live(Duration total, ManualScheduler... timers) {
        Duration step = Duration.ofSeconds(5);
        for (Duration passed = Duration.ZERO; passed.compareTo(total) < 0; passed = passed.plus(step)) {
            clock.advance(step);
            for (ManualScheduler t : timers) {
                t.runDue();
            }
        }
    }

    private static Throwable failureOf(CompletableFuture<?> f) {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        f.whenComplete((r, e) -> seen.set(e));
        assertThat(f).isDone();
        return seen.get();
    }

    private Instant leaseOf(String k) {
        return store.find(key(k)).map(StoredRecord::leaseExpiresAt).orElseThrow();
    }

    @Test
    void theHeartbeatKeepsASlowStagesLeaseAndStopsWhenItCompletes() throws Exception {
        IdempotencyEngine a = engine(timerA, Duration.ofMinutes(5));
        IdempotencyEngine b = engine(timerB, Duration.ofMinutes(5));
        CompletableFuture<String> stage = new CompletableFuture<>();
        CompletableFuture<Result<String>> first = a.executeAsync(key("slow"), "{}", String.class, pending(stage));
        Instant initial = leaseOf("slow");

        live(LEASE.multipliedBy(4), timerA, timerB);

        assertThat(leaseOf("slow")).isAfter(initial.plus(LEASE.multipliedBy(2)));
        assertThat(failureOf(b.executeAsync(key("slow"), "{}", String.class, counted("taker"))))
                .as("a duplicate long past the first lease").isInstanceOf(RequestInProgressException.class);
        stage.complete("ch_slow");
        assertThat(first.get().value()).isEqualTo("ch_slow");
        assertThat(timerA.pending()).as("the heartbeat stopped with the stage").isZero();
        assertThat(b.callAsync(key("slow"), "{}", String.class, counted("never")).get()).isEqualTo("ch_slow");
        assertThat(runs).hasValue(1);
    }

    @Test
    void aDeadProcessWhoseHeartbeatStoppedLetsADuplicateTakeOver() throws Exception {
        IdempotencyEngine a = engine(timerA, Duration.ofMinutes(5));
        IdempotencyEngine b = engine(timerB, Duration.ofMinutes(5));
        CompletableFuture<String> stage = new CompletableFuture<>();
        CompletableFuture<Result<String>> dead = a.executeAsync(key("dead"), "{}", String.class, pending(stage));

        // Process A is gone: its timer never runs again, so nothing extends its lease.
        live(LEASE.plusSeconds(5), timerB);
        Result<String> taker = b.executeAsync(key("dead"), "{}", String.class, counted("by-b")).get();

        assertThat(taker.replayed()).isFalse();
        assertThat(taker.attempt()).isEqualTo(2);
        // Were A's stage to complete after all, its fenced completion is refused.
        stage.complete("by-a");
        assertThat(failureOf(dead)).isInstanceOf(LeaseLostException.class);
        assertThat(b.callAsync(key("dead"), "{}", String.class, counted("never")).get()).isEqualTo("by-b");
        assertThat(runs).hasValue(2);
    }

    @Test
    void aStageThatNeverCompletesIsKeptNoLongerThanMaxPendingWork() throws Exception {
        Duration maxPending = Duration.ofMinutes(2);
        IdempotencyEngine a = engine(timerA, maxPending);
        IdempotencyEngine b = engine(timerB, maxPending);
        a.executeAsync(key("stuck"), "{}", String.class, pending(new CompletableFuture<>()));

        live(maxPending.minusSeconds(10), timerA, timerB);
        assertThat(failureOf(b.executeAsync(key("stuck"), "{}", String.class, counted("x"))))
                .as("still kept within the bound").isInstanceOf(RequestInProgressException.class);

        live(LEASE.plusSeconds(20), timerA, timerB);
        assertThat(timerA.pending()).as("the heartbeat gave up").isZero();
        Result<String> taker = b.executeAsync(key("stuck"), "{}", String.class, counted("by-b")).get();
        assertThat(taker.value()).isEqualTo("by-b");
        assertThat(taker.attempt()).isEqualTo(2);
    }

    @Test
    void cancellingTheAnswerDetachesTheCallerButNeverFreesTheKey() throws Exception {
        IdempotencyEngine a = engine(timerA, Duration.ofMinutes(5));
        IdempotencyEngine b = engine(timerB, Duration.ofMinutes(5));
        CompletableFuture<String> stage = new CompletableFuture<>();
        CompletableFuture<Result<String>> answer = a.executeAsync(key("cancel"), "{}", String.class,
                pending(stage));

        assertThat(answer.cancel(true)).isTrue();
        live(LEASE.multipliedBy(2), timerA, timerB);
        assertThat(failureOf(b.executeAsync(key("cancel"), "{}", String.class, counted("x"))))
                .as("the effect may still run: the key stays held").isInstanceOf(RequestInProgressException.class);
        assertThat(stage).as("the work is not cancelled with the answer").isNotDone();

        stage.complete("ch_after_cancel");
        assertThat(store.find(key("cancel")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(b.callAsync(key("cancel"), "{}", String.class, counted("never")).get())
                .isEqualTo("ch_after_cancel");
        assertThat(runs).hasValue(1);
    }

    @Test
    void aWorkStageThatIsItselfCancelledKeepsTheClaimUntilItsLeaseLapses() throws Exception {
        IdempotencyEngine a = engine(timerA, Duration.ofMinutes(5));
        IdempotencyEngine b = engine(timerB, Duration.ofMinutes(5));
        CompletableFuture<String> stage = new CompletableFuture<>();
        CompletableFuture<Result<String>> answer = a.executeAsync(key("wc"), "{}", String.class, pending(stage));

        stage.cancel(true);

        assertThat(failureOf(answer)).isInstanceOf(CancellationException.class);
        assertThat(store.find(key("wc")).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(timerA.pending()).as("no heartbeat for a cancelled stage").isZero();
        assertThat(failureOf(b.executeAsync(key("wc"), "{}", String.class, counted("x"))))
                .isInstanceOf(RequestInProgressException.class);
        live(LEASE.plusSeconds(5), timerB);
        assertThat(b.executeAsync(key("wc"), "{}", String.class, counted("by-b")).get().attempt()).isEqualTo(2);
    }
}
