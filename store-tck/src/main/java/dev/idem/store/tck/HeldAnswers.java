package dev.idem.store.tck;

import dev.idem.store.tck.StoreFixture.AnswersHeld;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Checks that calls return while the backend holds their answers ({@link StoreFixture#holdAnswers()}):
 * the calls run on a thread of their own, which must come back from them although no answer can
 * arrive. A call that waits for its answer on the caller's thread is caught at once when the hold
 * can tell who waits at it ({@link AnswersHeld#waiting()}), else when it has not returned after
 * {@link #RETURN_BOUND}: a correct call returns in microseconds, so only a machine stalled for that
 * long could fail a correct one, and nothing can make a call that waits for a held answer return.
 */
public final class HeldAnswers {
    /** How long the calls may take to return while answers are held. */
    public static final Duration RETURN_BOUND = Duration.ofSeconds(20);

    private HeldAnswers() {
    }

    /**
     * Runs {@code calls} on a new thread while {@code hold} keeps the answers back, and returns
     * what they returned once they came back.
     *
     * @param <T> what the calls return
     * @param hold the hold, still holding
     * @param what the calls, as a failure names them (for example {@code "NonBlockingStore.claim"})
     * @param step the call under way, as a failure names it (updated by {@code calls}); may be null
     * @param calls the calls, which must not wait for an answer
     * @return what {@code calls} returned
     * @throws AssertionError if they waited for a held answer, did not return in time, or failed
     * @throws InterruptedException if interrupted while waiting for them
     */
    public static <T> T returnWhileHeld(AnswersHeld hold, String what, AtomicReference<String> step,
            Callable<T> calls) throws InterruptedException {
        CompletableFuture<T> returned = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                returned.complete(calls.call());
            } catch (Throwable e) {
                returned.completeExceptionally(e);
            }
        }, "idem-tck-caller");
        caller.setDaemon(true);
        caller.start();
        long deadline = System.nanoTime() + RETURN_BOUND.toNanos();
        while (true) {
            try {
                return returned.get(1, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof AssertionError assertion) {
                    throw assertion;
                }
                String current = step == null || step.get() == null ? what : step.get();
                throw new AssertionError(current + " threw while the backend held its answer (" + cause + "): a"
                        + " non-blocking call returns a stage at once, and neither waits for the answer nor throws"
                        + " it", cause);
            } catch (TimeoutException e) {
                // Still in the calls: is the caller waiting at the hold?
            }
            Set<Thread> waiting = hold.waiting();
            String current = step == null || step.get() == null ? what : step.get();
            if (waiting.contains(caller)) {
                throw new AssertionError(current + " waited for the backend's answer on the caller's thread (the"
                        + " backend held it): a non-blocking call must return at once and complete its stage later");
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(current + " did not return within " + RETURN_BOUND + " while the backend"
                        + " held its answer: it waits for the answer on the caller's thread (threads at the hold: "
                        + waiting + ")");
            }
        }
    }
}
