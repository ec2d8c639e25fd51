package dev.idem.engine;

import static dev.idem.engine.Explorer.check;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Duplicates sharing one poll, in every interleaving of three waiters of a key: at most one claim
 * of theirs is in the store at a time, and every waiter is answered, also when the claim fails (its
 * waiters get the failure and the next one claims again).
 */
class SharedPollsExploreTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("explore", "poll", "k");
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final ClaimResult IN_PROGRESS = ClaimResult.existing(new StoredRecord(KEY, RecordState.IN_PROGRESS,
            new byte[] {1}, 7, 1, NOW, NOW.plusSeconds(30), NOW.plusSeconds(3600), null, null), NOW);

    /** What a waiter does with the polls under test; the real {@link SharedPolls} and the planted one. */
    interface Polls {
        Share join();
    }

    /** A waiter's part in one poll. */
    interface Share {
        boolean issuer();

        /** The issuer hands its claim's answer (null: the claim failed) to everyone in the poll. */
        void answer(ClaimResult claim);

        /** Calls {@code then} once the poll is answered (at once if it already is). */
        void whenAnswered(Runnable then);
    }

    static Polls real() {
        SharedPolls polls = new SharedPolls(() -> 0L);
        return () -> {
            SharedPolls.Ticket ticket = polls.join(KEY);
            return new Share() {
                @Override
                public boolean issuer() {
                    return ticket.issuer();
                }

                @Override
                public void answer(ClaimResult claim) {
                    if (claim == null) {
                        ticket.fail(new IllegalStateException("the store is down"));
                    } else {
                        ticket.answer(claim);
                    }
                }

                @Override
                public void whenAnswered(Runnable then) {
                    if (!ticket.whenAnswered((r, e) -> then.run())) {
                        then.run();
                    }
                }
            };
        };
    }

    /**
     * Three waiters of one key poll at once; the first issuer's claim fails when {@code firstFails}.
     * Each issuer counts its claim in the store while it is there.
     */
    static Runnable threeWaiters(Supplier<Polls> made, boolean firstFails) {
        return () -> {
            Polls polls = made.get();
            AtomicInteger inStore = new AtomicInteger();
            AtomicInteger issued = new AtomicInteger();
            boolean[] answered = new boolean[3];
            List<String> broken = new ArrayList<>();
            Consumer<Integer> waiter = i -> {
                Share share = polls.join();
                share.whenAnswered(() -> answered[i] = true);
                if (share.issuer()) {
                    if (inStore.incrementAndGet() > 1) {
                        synchronized (broken) {
                            broken.add("two claims of one key in the store at once");
                        }
                    }
                    boolean fails = firstFails && issued.getAndIncrement() == 0;
                    inStore.decrementAndGet();
                    share.answer(fails ? null : IN_PROGRESS);
                }
            };
            Explorer.parties(() -> waiter.accept(0), () -> waiter.accept(1), () -> waiter.accept(2));
            check(broken.isEmpty(), String.join(", ", broken));
            for (int i = 0; i < answered.length; i++) {
                check(answered[i], "waiter " + (i + 1) + " of the shared poll was never answered");
            }
        };
    }

    @Test
    void everyWaiterOfASharedPollIsAnswered() {
        Explorer.explore(threeWaiters(SharedPollsExploreTest::real, false));
    }

    @Test
    void everyWaiterOfAFailedPollIsAnsweredAndTheNextClaimsAgain() {
        Explorer.explore(threeWaiters(SharedPollsExploreTest::real, true));
    }

    /** Planted: polls that hand the answer to the waiters they had when it came, and forget a late one. */
    @Test
    void findsAPollThatForgetsAWaiter() {
        String schedule = Explorer.findsBug("a shared poll whose waiters are not all answered",
                threeWaiters(ForgetfulPolls::new, false));
        assertTrue(schedule.contains("was never answered"), schedule);
    }

    /**
     * The plant: a poll that keeps its waiters in a list and, once answered, runs the ones listed
     * and then drops the poll. A waiter that joined the poll but lists itself between the two is
     * never answered: the lost wake-up that the real poll's single future cannot have.
     */
    static final class ForgetfulPolls implements Polls {
        private List<Runnable> waiters;
        private boolean answered;

        @Override
        public Share join() {
            boolean issuer;
            synchronized (this) {
                issuer = waiters == null || answered;
                if (issuer) {
                    waiters = new ArrayList<>();
                    answered = false;
                }
            }
            return new Share() {
                @Override
                public boolean issuer() {
                    return issuer;
                }

                @Override
                public void answer(ClaimResult claim) {
                    List<Runnable> toRun;
                    synchronized (ForgetfulPolls.this) {
                        toRun = new ArrayList<>(waiters);
                    }
                    toRun.forEach(Runnable::run);
                    synchronized (ForgetfulPolls.this) {
                        answered = true;
                    }
                }

                @Override
                public void whenAnswered(Runnable then) {
                    synchronized (ForgetfulPolls.this) {
                        if (!answered) {
                            waiters.add(then);
                            return;
                        }
                    }
                    then.run();
                }
            };
        }
    }
}
