package dev.idem.store.tck;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How many rounds a race runs: until its parties were seen to meet in a given number of them.
 * A round meets when calls of the parties that race were in flight at one moment, as the
 * {@link History}'s clock saw them; a round in which one party's call returned before the
 * other's began tested nothing and does not count.
 *
 * <p>On an idle machine the parties of a {@link Lockstep} round meet in most rounds. On a loaded
 * one the scheduler often runs one party's whole call before the next party gets a CPU, which
 * would leave a fixed number of rounds with few or no real races (a non-atomic store then
 * passes); counting meetings instead makes a loaded machine run more rounds, never fewer races.
 * Every wait is bounded: a race that cannot meet often enough in {@link #MAX_ROUNDS} rounds,
 * or within {@link #BUDGET_SECONDS}, fails and says so, rather than passing untested.
 */
final class Meetings {
    /** Rounds a race may take to meet its quota, at most (a round in memory costs about a millisecond under load). */
    static final int MAX_ROUNDS = 20_000;
    /** Real time a race may take to meet its quota, at most. */
    static final long BUDGET_SECONDS = 15;

    private final String race;
    private final int quota;
    private final long deadline;
    private int rounds;
    private int met;

    /**
     * Counts the rounds of {@code race} until {@code quota} of them met.
     *
     * @param race what the race is, for the failure message
     * @param quota the meetings needed
     */
    Meetings(String race, int quota) {
        this.race = race;
        this.quota = quota;
        this.deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BUDGET_SECONDS);
    }

    /**
     * Whether another round is needed.
     *
     * @throws AssertionError if the quota was not met within the rounds or the time allowed
     */
    boolean more() {
        if (met >= quota) {
            return false;
        }
        if (rounds >= MAX_ROUNDS || System.nanoTime() - deadline > 0) {
            throw new AssertionError(String.format("%s: the parties met in only %d of %d rounds (%d needed);"
                    + " the race was not run often enough to judge the store", race, met, rounds, quota));
        }
        return true;
    }

    /** Counts a round that ran, and whether its parties met. */
    void count(boolean meeting) {
        rounds++;
        if (meeting) {
            met++;
        }
    }

    /** The rounds run so far. */
    int rounds() {
        return rounds;
    }

    /** Whether some call of {@code a} and some call of {@code b} were in flight at one moment. */
    static boolean anyOverlap(List<History.Entry> a, List<History.Entry> b) {
        for (History.Entry x : a) {
            for (History.Entry y : b) {
                if (x != y && x != null && x.overlaps(y)) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return race + ": met in " + met + " of " + rounds + " rounds";
    }
}
