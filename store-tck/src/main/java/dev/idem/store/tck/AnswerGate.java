package dev.idem.store.tck;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A gate in front of a backend that a fixture's {@link StoreFixture#holdAnswers()} can close: while
 * held, a blocking call waits at {@link #pass()} and a non-blocking one chains on {@link #open()},
 * so no answer leaves until the hold is closed. The gate knows which threads wait at
 * {@link #pass()}, so the kit fails a call that waits on its caller's thread at once. For fixtures
 * whose backend sits in the test's own code (an in-memory store, an HTTP client the fixture builds);
 * thread-safe.
 */
public final class AnswerGate {
    /** The longest a call waits at a held gate, so a test that forgets to close a hold cannot hang a build. */
    private static final long LONGEST_HOLD_SECONDS = 120;

    private volatile CompletableFuture<Void> opened = CompletableFuture.completedFuture(null);
    private final Set<Thread> waiting = ConcurrentHashMap.newKeySet();

    /**
     * Waits, on the calling thread, while answers are held.
     *
     * @throws IllegalStateException if interrupted, or held for more than two minutes
     */
    public void pass() {
        CompletableFuture<Void> gate = opened;
        if (gate.isDone()) {
            return;
        }
        waiting.add(Thread.currentThread());
        try {
            gate.get(LONGEST_HOLD_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the backend's answers were held", e);
        } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("the backend's answers were held for more than "
                    + LONGEST_HOLD_SECONDS + " s", e);
        } finally {
            waiting.remove(Thread.currentThread());
        }
    }

    /**
     * What a non-blocking call chains on: completes (on the thread that closes the hold) once answers
     * are no longer held, at once if they are not.
     *
     * @return a stage that completes when the gate is open
     */
    public CompletableFuture<Void> open() {
        return opened;
    }

    /**
     * Holds every answer until the returned hold is closed.
     *
     * @return the hold
     */
    public StoreFixture.AnswersHeld hold() {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        opened = gate;
        return new StoreFixture.AnswersHeld() {
            @Override
            public void close() {
                gate.complete(null);
            }

            @Override
            public Set<Thread> waiting() {
                return Set.copyOf(waiting);
            }
        };
    }
}
