package dev.idem.store.tck;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.Set;

/**
 * How the test kit reaches one adapter: the store under test and a way to let time pass
 * on the store's clock.
 *
 * <p>Stores on an injected clock move a {@link MutableClock}; stores that judge time by
 * their server's clock really wait, and should then return a short {@link #lease()} so
 * the suite stays fast.
 */
public interface StoreFixture {

    /**
     * The store under test; the same instance for the whole test method.
     *
     * @return the store under test
     */
    IdempotencyStore store();

    /**
     * A second store instance on the same backend (its own client or connection pool),
     * for races between processes. Defaults to {@link #store()}.
     *
     * @return a second store instance on the same backend (its own client or connection pool), for races between processes
     */
    default IdempotencyStore otherStore() {
        return store();
    }

    /**
     * Lets at least {@code d} pass on the store's clock. The kit moves by fractions of a second
     * as well as by whole leases; once per test, on a simulated clock, by a fraction of a
     * millisecond too (a clock of millisecond resolution may drop that part).
     *
     * @param d how far to move
     * @throws InterruptedException if the wait is interrupted
     */
    void advance(Duration d) throws InterruptedException;

    /**
     * Whether {@link #advance} moves a clock the store reads (a {@link MutableClock}, or an
     * offset added to the server's clock) instead of waiting for real time to pass. The kit
     * then lets time pass as often as it likes (stateful test, concurrent histories);
     * otherwise it lets time pass only in the tests whose subject is expiry, and gives every
     * other lease far longer than the test, so a loaded machine cannot move a call across a
     * deadline. Defaults to false.
     *
     * @return true if advancing costs no real time
     */
    default boolean clockIsSimulated() {
        return false;
    }

    /**
     * The lease used by tests that let leases lapse.
     *
     * @return the lease used by tests that let leases lapse
     */
    default Duration lease() {
        return Duration.ofSeconds(30);
    }

    /**
     * The TTL used by tests that let records expire; must exceed {@link #lease()}.
     *
     * @return the TTL used by tests that let records expire
     */
    default Duration ttl() {
        return lease().multipliedBy(2);
    }

    /**
     * Slack added to every {@link #advance} past a deadline, covering clock granularity
     * and the time between the store reading its clock and the test reading its own.
     *
     * @return slack added to every {@link #advance} past a deadline, covering clock granularity and the time between the store reading its clock and the test reading its own
     */
    default Duration slack() {
        return Duration.ofMillis(1);
    }

    /**
     * The largest outcome the suite stores: 1 MiB, the SPI's floor. A backend that cannot
     * hold that in one record (DynamoDB) lowers it to its declared maximum and documents why.
     *
     * @return the largest outcome the suite stores
     */
    default int largeOutcomeBytes() {
        return 1024 * 1024;
    }

    /**
     * Holds the backend's answers to {@link #store()}'s calls until the returned hold is closed: a
     * call made meanwhile, through either form, gets its answer only after that. The kit holds
     * answers to check the first promise of a non-blocking form: a call returns before its answer
     * arrives, and never waits for it on the caller's thread. A fixture whose store offers a
     * {@link dev.idem.api.store.NonBlockingStore} implements it (the non-blocking suites of both
     * kits call it); the default refuses. Ways to hold: Redis's {@code CLIENT PAUSE <ms> WRITE}
     * (scripts are writes), an HTTP client that keeps requests back until released, a gate in
     * front of an in-memory map.
     *
     * @return the hold; closing it lets every held answer go
     * @throws Exception if the backend cannot be held
     */
    default AnswersHeld holdAnswers() throws Exception {
        throw new UnsupportedOperationException(getClass().getName() + " cannot hold its backend's answers:"
                + " a fixture whose store offers a NonBlockingStore implements StoreFixture.holdAnswers()");
    }

    /** A hold on the backend's answers (see {@link #holdAnswers()}). */
    interface AnswersHeld extends AutoCloseable {
        /** Lets every held answer go; closing again does nothing. */
        @Override
        void close();

        /**
         * The threads known to wait inside a store call for an answer held here, if the hold can
         * tell (a gate in a test's own code can, a paused server cannot): the kit then fails a call
         * that waits on its caller's thread at once, rather than at its time bound.
         *
         * @return the waiting threads; empty if there are none or the hold cannot tell
         */
        default Set<Thread> waiting() {
            return Set.of();
        }
    }

    /**
     * Called after each test or property; closes what this fixture opened (not shared backends).
     *
     * @throws Exception if closing fails
     */
    default void close() throws Exception {
    }
}
