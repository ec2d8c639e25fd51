package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import dev.idem.store.tck.ManualScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A held key's lease renewals, one heartbeat alone: it beats every third of the lease counted from
 * when the last beat fell due (a slow store's answer does not push later beats back, an overdue one
 * goes at once), skips a beat while the work's own extension reaches further, stops for good on a
 * refused extension or once the work has been pending its bound, tries again after a store failure,
 * and its stop waits for the extension in flight, so no renewal outlives the work. These are what
 * keep a live holder's key and let a dead one's lapse. Time is a hand-moved ticker and the timer
 * runs only when the test says so; the store's answers are stages the test completes.
 */
class HeartbeatTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("tenant", "charge", "k-1");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final long SECOND = 1_000_000_000L;
    private static final Instant UNTIL = Instant.parse("2026-01-01T00:00:30Z");

    private long now = 1_000 * SECOND;
    private final ManualScheduler timer = new ManualScheduler(() -> now);
    private final Store store = new Store();
    private final Held held = new Held();

    /** The lease the heartbeat keeps: whether the work extended it itself, and the renewals it was told of. */
    private static final class Held implements Heartbeat.Lease {
        boolean reachesPast;
        final List<String> renewed = new ArrayList<>();

        @Override
        public boolean reachesPast(Duration renewal) {
            return reachesPast;
        }

        @Override
        public void renewed(long sentAt, Duration renewal, Instant until) {
            renewed.add(sentAt / SECOND + "s +" + renewal.toSeconds() + "s -> " + until);
        }
    }

    /** A port whose extensions stay in flight until the test answers them. */
    private static final class Store implements StorePort {
        final List<CompletableFuture<Optional<Instant>>> extensions = new ArrayList<>();
        RuntimeException throwing;

        @Override
        public synchronized CompletableFuture<Optional<Instant>> extendLease(IdempotencyKey key, long token,
                Duration lease) {
            assertThat(key).isEqualTo(KEY);
            assertThat(token).isEqualTo(7L);
            assertThat(lease).isEqualTo(LEASE);
            if (throwing != null) {
                throw throwing;
            }
            CompletableFuture<Optional<Instant>> f = new CompletableFuture<>();
            extensions.add(f);
            return f;
        }

        synchronized CompletableFuture<Optional<Instant>> last() {
            return extensions.get(extensions.size() - 1);
        }

        @Override
        public void claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl,
                Answer<ClaimResult> then) {
            throw new AssertionError("a heartbeat never claims");
        }

        @Override
        public CompletableFuture<Boolean> complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            throw new AssertionError("a heartbeat never completes");
        }

        @Override
        public CompletableFuture<Boolean> release(IdempotencyKey key, long token) {
            throw new AssertionError("a heartbeat never releases");
        }

        @Override
        public CompletableFuture<Void> pause(Duration d) {
            throw new AssertionError("a heartbeat never pauses");
        }
    }

    private Heartbeat started(Duration maxPending) {
        Heartbeat beat = new Heartbeat(KEY, 7L, held, LEASE, maxPending, store, () -> now, timer);
        beat.start();
        return beat;
    }

    private void pass(long seconds) {
        now += seconds * SECOND;
        timer.runDue();
    }

    @Test
    void beatsEveryThirdOfTheLeaseCountedFromWhenTheLastBeatFellDue() {
        started(Duration.ofHours(1));
        assertThat(timer.nextDue()).contains(Duration.ofSeconds(10));
        pass(9);
        assertThat(store.extensions).isEmpty();
        pass(1);
        assertThat(store.extensions).hasSize(1);
        assertThat(timer.pending()).as("no second beat while the first is in flight").isZero();

        // The store answers 4 s late: the next beat is still 10 s after the last fell due.
        now += 4 * SECOND;
        store.last().complete(Optional.of(UNTIL));
        assertThat(held.renewed).containsExactly("1010s +30s -> " + UNTIL);
        assertThat(timer.nextDue()).contains(Duration.ofSeconds(6));

        // An answer later than a whole interval: the overdue beat goes at once, and only once.
        pass(6);
        assertThat(store.extensions).hasSize(2);
        now += 12 * SECOND;
        store.last().complete(Optional.of(UNTIL.plusSeconds(10)));
        assertThat(timer.nextDue()).contains(Duration.ZERO);
        timer.runDue();
        assertThat(store.extensions).hasSize(3);
        assertThat(held.renewed).hasSize(2);
    }

    @Test
    void aLeaseTheWorkExtendedFurtherItselfIsNotRenewedButStillWatched() {
        started(Duration.ofHours(1));
        held.reachesPast = true;
        pass(10);
        assertThat(store.extensions).as("no renewal while the work's own extension reaches further").isEmpty();
        assertThat(timer.nextDue()).contains(Duration.ofSeconds(10));
        held.reachesPast = false;
        pass(10);
        assertThat(store.extensions).hasSize(1);
    }

    @Test
    void aRefusedExtensionStopsTheBeats() {
        started(Duration.ofHours(1));
        pass(10);
        store.last().complete(Optional.empty());
        assertThat(held.renewed).isEmpty();
        assertThat(timer.pending()).as("another claim holds the key: nothing left to keep").isZero();
    }

    @Test
    void aStoreFailureSkipsOneBeatAndTheNextTriesAgain() {
        started(Duration.ofHours(1));
        pass(10);
        store.last().completeExceptionally(new StoreUnavailableException("timed out", null, true));
        assertThat(held.renewed).isEmpty();
        assertThat(timer.nextDue()).contains(Duration.ofSeconds(10));

        store.throwing = new StoreUnavailableException("connection refused", null, true);
        pass(10);
        assertThat(timer.nextDue()).as("a port that throws is a failed beat too").contains(Duration.ofSeconds(10));
        store.throwing = null;
        pass(10);
        store.last().complete(Optional.of(UNTIL));
        assertThat(held.renewed).hasSize(1);
    }

    @Test
    void workPendingItsBoundIsNoLongerRenewedSoItsLeaseLapses() {
        started(Duration.ofSeconds(20));
        pass(10);
        store.last().complete(Optional.of(UNTIL));
        // The next beat falls due exactly at the bound: it is not sent.
        pass(10);
        assertThat(store.extensions).hasSize(1);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void aBeatJustBeforeTheBoundIsStillSent() {
        started(Duration.ofSeconds(10).plusNanos(1));
        pass(10);
        assertThat(store.extensions).hasSize(1);
    }

    @Test
    void aSchedulerThatRefusesStopsTheBeatsWithoutFailingTheWork() {
        Heartbeat beat = new Heartbeat(KEY, 7L, held, LEASE, Duration.ofHours(1), store, () -> now, (d, task) -> {
            throw new IllegalStateException("timer shut down");
        });
        beat.start();
        assertThat(beat.stop()).isNull();
        assertThat(store.extensions).isEmpty();
    }

    @Test
    void stopCancelsTheNextBeatAndAnswersAtOnceWhenNoExtensionIsInFlight() {
        Heartbeat beat = started(Duration.ofHours(1));
        assertThat(beat.stop()).isNull();
        assertThat(timer.pending()).isZero();
        pass(60);
        assertThat(store.extensions).isEmpty();
    }

    @Test
    void stopWaitsForTheExtensionInFlightAndNoBeatFollowsIt() {
        Heartbeat beat = started(Duration.ofHours(1));
        pass(10);
        CompletableFuture<Void> stopped = beat.stop();
        assertThat(stopped).as("a renewal is in flight").isNotNull().isNotDone();
        store.last().completeExceptionally(new StoreUnavailableException("timed out", null, true));
        assertThat(stopped).isCompletedWithValue(null);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void stopAndAwaitReturnsOnceTheExtensionAnsweredAndKeepsTheCallersInterrupt() throws Exception {
        Heartbeat beat = started(Duration.ofHours(1));
        pass(10);
        ExecutorService worker = Executors.newSingleThreadExecutor();
        try {
            Thread[] waiting = new Thread[1];
            Object ready = new Object();
            Future<Boolean> interrupted = worker.submit(() -> {
                synchronized (ready) {
                    waiting[0] = Thread.currentThread();
                    ready.notifyAll();
                }
                Thread.currentThread().interrupt();
                beat.stopAndAwait();
                return Thread.interrupted();
            });
            Thread t;
            synchronized (ready) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (waiting[0] == null && System.nanoTime() < deadline) {
                    ready.wait(100);
                }
                t = waiting[0];
            }
            assertThat(t).isNotNull();
            // Waiting for the answer (the interrupt it met on the way did not end the wait).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (t.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(t.getState()).isEqualTo(Thread.State.WAITING);
            assertThat(interrupted).isNotDone();
            store.last().complete(Optional.of(UNTIL));
            assertThat(interrupted.get(10, TimeUnit.SECONDS)).as("the interrupt is kept for later").isTrue();
            assertThat(timer.pending()).isZero();
        } finally {
            worker.shutdownNow();
        }
    }
}
