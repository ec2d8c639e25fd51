package dev.idem.testing;

import dev.idem.api.IdempotencyKey;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One crash schedule's run: the fault the first worker met and where, on a key of its own, and
 * what came of it once callers had retried until the key settled, and one more duplicate had
 * called: each effect's count, the reconciler calls, and every answer the callers got, in order.
 * Immutable.
 */
public final class CrashSchedule {
    private final int number;
    private final String fault;
    private final boolean reached;
    private final IdempotencyKey key;
    private final Map<String, Integer> effects;
    private final List<String> reconciled;
    private final List<Answer> answers;

    CrashSchedule(int number, String fault, boolean reached, IdempotencyKey key, Map<String, Integer> effects,
            List<String> reconciled, List<Answer> answers) {
        this.number = number;
        this.fault = fault;
        this.reached = reached;
        this.key = key;
        this.effects = Map.copyOf(effects);
        this.reconciled = List.copyOf(reconciled);
        this.answers = List.copyOf(answers);
    }

    /**
     * The schedule's number: 0 for the fault-free run, then in the order the schedules ran.
     *
     * @return the number
     */
    public int number() {
        return number;
    }

    /**
     * The fault and where it hit, in words ("the worker dies in at-most-once step 'charge', after
     * its start marker, before its action").
     *
     * @return the fault
     */
    public String fault() {
        return fault;
    }

    /**
     * Whether the run reached the point the schedule picked (it was found by the fault-free run;
     * work that does not start the same steps and store calls every time may not reach it).
     *
     * @return true if the fault fired
     */
    public boolean reached() {
        return reached;
    }

    /**
     * The idempotency key this schedule ran on: its own, so no schedule sees another's record.
     *
     * @return the key
     */
    public IdempotencyKey key() {
        return key;
    }

    /**
     * How many times the outside world saw {@code effect} in this schedule.
     *
     * @param effect the effect's name, as the fakes recorded it
     * @return the count, 0 if never
     */
    public int effects(String effect) {
        return effects.getOrDefault(effect, 0);
    }

    /**
     * Every effect recorded in this schedule, with its count.
     *
     * @return the counts, by name
     */
    public Map<String, Integer> effects() {
        return effects;
    }

    /**
     * The at-most-once steps whose reconciler was called, in order, each with the attempt that
     * started it ("charge (started by attempt 1)").
     *
     * @return the reconciler calls
     */
    public List<String> reconciled() {
        return reconciled;
    }

    /**
     * Every answer the callers got, in the order they got them: the first worker's (often
     * {@link Answer.Kind#CRASHED}), those of a caller that took the key over meanwhile, the
     * retries until the key settled, and a last duplicate after it settled.
     *
     * @return the answers
     */
    public List<Answer> answers() {
        return answers;
    }

    /**
     * The answer the key settled on: the first settling one.
     *
     * @return the settled answer, or null if the key never settled
     */
    public @Nullable Answer settled() {
        return answers.stream().filter(Answer::settles).findFirst().orElse(null);
    }

    /**
     * Whether every caller that got a settling answer got the same one (a value, a final failure
     * or an outcome not stored), and the last duplicate got it too.
     *
     * @return true if the key settled and its callers agree
     */
    public boolean answersAgree() {
        Answer settled = settled();
        if (settled == null || !answers.get(answers.size() - 1).settles()) {
            return false;
        }
        return answers.stream().filter(Answer::settles).allMatch(settled::sameAs);
    }

    @Override
    public String toString() {
        return "schedule " + number + ": " + fault + (reached ? "" : " (not reached)") + " on key " + key.key()
                + "\n    effects " + effects + (reconciled.isEmpty() ? "" : ", reconciled " + reconciled)
                + "\n    answers " + answers;
    }
}
