package dev.idem.engine;

import static dev.idem.engine.Explorer.check;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.time.Scheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Lease renewal against the end of the work, in every interleaving of the heartbeat's beat, the
 * store answering the renewal, and the work ending: the key is ended only after every renewal the
 * store applies (stop's stage), so no renewal lengthens a lease after the key was completed or
 * handed back.
 */
class HeartbeatExploreTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("explore", "beat", "k");
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    /** The store's side of one key: its renewals, applied on the store's own thread, and its end. */
    static final class Store {
        private final List<Thread> threads = new ArrayList<>();
        private boolean ended;
        private String broken;

        synchronized void end() {
            ended = true;
        }

        synchronized void applyRenewal() {
            if (ended && broken == null) {
                broken = "a renewal was applied after the key ended";
            }
        }

        /** Answers a renewal on a thread of the store's, as a store client's I/O thread would. */
        CompletableFuture<Optional<Instant>> renew() {
            CompletableFuture<Optional<Instant>> answer = new CompletableFuture<>();
            Thread io = new Thread(() -> {
                applyRenewal();
                answer.complete(Optional.of(NOW.plusSeconds(30)));
            });
            synchronized (this) {
                threads.add(io);
            }
            io.start();
            return answer;
        }

        List<Thread> threads() {
            synchronized (this) {
                return new ArrayList<>(threads);
            }
        }

        synchronized String broken() {
            return broken;
        }
    }

    /** A timer the scenario drives: tasks run when a party runs them, never on time. */
    static final class Timer implements Scheduler {
        private final List<Runnable> due = new ArrayList<>();

        @Override
        public synchronized Cancellable schedule(Duration delay, Runnable task) {
            due.add(task);
            return () -> {
                synchronized (this) {
                    due.remove(task);
                }
            };
        }

        /** Runs the first task due, if one is (a cancelled one is gone). */
        void fire() {
            Runnable task;
            synchronized (this) {
                task = due.isEmpty() ? null : due.remove(0);
            }
            if (task != null) {
                task.run();
            }
        }
    }

    /** How the work's end treats the heartbeat: the engine's way waits for the renewal stop returns. */
    interface Ending {
        void end(Heartbeat heartbeat, Store store);
    }

    static final Ending ENGINE = (heartbeat, store) -> {
        CompletableFuture<Void> renewing = heartbeat.stop();
        if (renewing == null) {
            store.end();
        } else {
            renewing.whenComplete((v, e) -> store.end());
        }
    };

    /** A beat falls due while the work ends; then the store answers whatever is in flight. */
    static Runnable beatWhileTheWorkEnds(Ending ending) {
        return () -> {
            Store store = new Store();
            Timer timer = new Timer();
            Heartbeat heartbeat = new Heartbeat(KEY, 7, new Heartbeat.Lease() {
                @Override
                public boolean reachesPast(Duration renewal) {
                    return false;
                }

                @Override
                public void renewed(long sentAt, Duration renewal, Instant until) {
                }
            }, Duration.ofSeconds(30), Duration.ofHours(1), new RenewingPort(store), () -> 0L, timer);
            heartbeat.start();
            Explorer.parties(timer::fire, () -> ending.end(heartbeat, store));
            Explorer.joinAll(store.threads());
            String broken = store.broken();
            check(broken == null, String.valueOf(broken));
        };
    }

    /** How the blocking driver ends a held key: it waits on this thread for the renewal in flight. */
    static final Ending BLOCKING = (heartbeat, store) -> {
        heartbeat.stopAndAwait();
        store.end();
    };

    @Test
    void noRenewalIsAppliedAfterTheKeyEnded() {
        Explorer.explore(beatWhileTheWorkEnds(ENGINE));
    }

    @Test
    void noRenewalIsAppliedAfterABlockingCallEndedItsKey() {
        Explorer.explore(beatWhileTheWorkEnds(BLOCKING));
    }

    /** Planted: the work's end does not wait for the renewal in flight that stop returned. */
    @Test
    void findsARenewalThatRunsAfterCompletion() {
        String schedule = Explorer.findsBug("a renewal that runs after completion", beatWhileTheWorkEnds((heartbeat, store) -> {
            heartbeat.stop();
            store.end();
        }));
        assertTrue(schedule.contains("a renewal was applied after the key ended"), schedule);
    }

    /** A port whose renewals the store answers on its own thread; nothing else is called. */
    static final class RenewingPort implements StorePort {
        private final Store store;

        RenewingPort(Store store) {
            this.store = store;
        }

        @Override
        public CompletableFuture<Optional<Instant>> extendLease(IdempotencyKey key, long token, Duration lease) {
            return store.renew();
        }

        @Override
        public void claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl,
                Answer<ClaimResult> then) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Boolean> complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Boolean> release(IdempotencyKey key, long token) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> pause(Duration d) {
            throw new UnsupportedOperationException();
        }
    }
}
