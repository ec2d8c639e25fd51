package dev.idem.testing;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * What a {@link CrashTester} run found: one {@link CrashSchedule} per fault and point, each on a
 * key of its own. Ask it directly ({@link #mostEffects}, {@link #schedulesWhere}) with the test's
 * own assertions, or let it assert: {@link #assertExactlyOnce}, {@link #assertAtMostOnce} and
 * {@link #assertAnswersAgree} throw an {@link AssertionError} that lists every schedule that broke
 * the rule, with its effects and answers, so a test framework shows what to fix. Only the schedules
 * the run reached count. Immutable.
 */
public final class CrashReport {
    private final List<CrashSchedule> schedules;

    CrashReport(List<CrashSchedule> schedules) {
        this.schedules = List.copyOf(schedules);
    }

    /**
     * Every schedule, the fault-free one first.
     *
     * @return the schedules
     */
    public List<CrashSchedule> schedules() {
        return schedules;
    }

    /**
     * The schedules that reached their fault and satisfy {@code condition}.
     *
     * @param condition what to look for, such as {@code s -> s.effects("charge") > 1}
     * @return those schedules, in order
     */
    public List<CrashSchedule> schedulesWhere(Predicate<? super CrashSchedule> condition) {
        Objects.requireNonNull(condition, "condition");
        return schedules.stream().filter(CrashSchedule::reached).filter(condition).collect(Collectors.toList());
    }

    /**
     * The schedules whose point the run did not reach (empty for work that starts the same steps
     * and store calls on every run).
     *
     * @return those schedules
     */
    public List<CrashSchedule> unreached() {
        return schedules.stream().filter(s -> !s.reached()).collect(Collectors.toList());
    }

    /**
     * The most times {@code effect} happened on one key, over every schedule.
     *
     * @param effect the effect's name
     * @return the highest count
     */
    public int mostEffects(String effect) {
        return schedulesWhere(s -> true).stream().mapToInt(s -> s.effects(effect)).max().orElse(0);
    }

    /**
     * The fewest times {@code effect} happened on one key, over every schedule.
     *
     * @param effect the effect's name
     * @return the lowest count
     */
    public int fewestEffects(String effect) {
        return schedulesWhere(s -> true).stream().mapToInt(s -> s.effects(effect)).min().orElse(0);
    }

    /**
     * Every effect name any schedule recorded.
     *
     * @return the names, sorted
     */
    public Set<String> effectNames() {
        Set<String> names = new TreeSet<>();
        schedules.forEach(s -> names.addAll(s.effects().keySet()));
        return names;
    }

    /**
     * Asserts that each of {@code effects} happened exactly once per key in every schedule.
     *
     * @param effects the effects' names
     * @return this report
     * @throws AssertionError listing each schedule where one happened twice or never
     */
    public CrashReport assertExactlyOnce(String... effects) {
        for (String effect : effects) {
            fail(schedulesWhere(s -> s.effects(effect) != 1), effect + " happened other than exactly once");
        }
        return this;
    }

    /**
     * Asserts that each of {@code effects} happened at most once per key in every schedule.
     *
     * @param effects the effects' names
     * @return this report
     * @throws AssertionError listing each schedule where one happened more than once
     */
    public CrashReport assertAtMostOnce(String... effects) {
        for (String effect : effects) {
            fail(schedulesWhere(s -> s.effects(effect) > 1), effect + " happened more than once");
        }
        return this;
    }

    /**
     * Asserts that in every schedule the key settled and every caller that got a settling answer
     * got the same one.
     *
     * @return this report
     * @throws AssertionError listing each schedule whose callers disagree or whose key never settled
     */
    public CrashReport assertAnswersAgree() {
        fail(schedulesWhere(s -> !s.answersAgree()), "callers of one key got different answers, or none");
        return this;
    }

    private void fail(List<CrashSchedule> broken, String what) {
        if (!broken.isEmpty()) {
            throw new AssertionError(what + " in " + broken.size() + " of " + schedulesWhere(s -> true).size()
                    + " crash schedules:\n  " + broken.stream().map(CrashSchedule::toString)
                            .collect(Collectors.joining("\n  ")));
        }
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("crash report: ").append(schedules.size()).append(" schedules");
        if (!unreached().isEmpty()) {
            out.append(" (").append(unreached().size()).append(" not reached)");
        }
        for (String effect : effectNames()) {
            out.append("\n  ").append(effect).append(": ").append(fewestEffects(effect)).append(" to ")
                    .append(mostEffects(effect)).append(" times per key");
        }
        long disagree = schedulesWhere(s -> !s.answersAgree()).size();
        out.append("\n  schedules whose callers disagree or never settled: ").append(disagree);
        return out.toString();
    }
}
