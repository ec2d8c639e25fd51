package dev.idem.client.internal;

import dev.idem.client.Attempt;
import dev.idem.client.RetryBudget;
import dev.idem.client.RetryDecision;
import dev.idem.client.RetryListener;
import dev.idem.client.RetryPolicy;
import dev.idem.client.StopReason;
import dev.idem.api.time.Deadline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The state of one logical operation across its attempts: counts attempts, applies the policy,
 * deadline and budget, and tells the listener. Transport-agnostic, shared by the sync and async
 * loops. Confined to one logical operation; async loops hand it from stage to stage, which the
 * completion chain orders. Not API.
 */
public final class RetrySession {

    private static final System.Logger LOG = System.getLogger(RetrySession.class.getName());

    private final RetryPolicy policy;
    private final RetryBudget budget;
    private final RetryListener listener;
    private final String key;
    private final long startNanos;
    private final long deadlineNanos;
    private final List<Throwable> failures = new ArrayList<>();
    private int attempts;
    private Duration previousBackoff;

    public RetrySession(RetryPolicy policy, RetryBudget budget, RetryListener listener, String key) {
        this(policy, budget, listener, key, null);
    }

    /**
     * A session whose deadline is the policy's, shortened to the caller's: {@code callerBudget}
     * (null for none) and the deadline bound to this thread ({@link Deadline#current()}, which the
     * engine binds while work runs), whichever leaves least, counted from now.
     */
    public RetrySession(RetryPolicy policy, RetryBudget budget, RetryListener listener, String key,
            Duration callerBudget) {
        this.policy = policy;
        this.budget = budget;
        this.listener = listener;
        this.key = key;
        this.startNanos = policy.ticker().read();
        long nanos = policy.deadline().toNanos();
        Optional<Deadline> inherited = Deadline.current();
        if (inherited.isPresent()) {
            nanos = Math.min(nanos, inherited.get().remainingNanos());
        }
        if (callerBudget != null) {
            nanos = Math.min(nanos, Math.max(0, callerBudget.compareTo(Deadline.MAX_BUDGET) > 0
                    ? Deadline.MAX_BUDGET.toNanos() : callerBudget.toNanos()));
        }
        this.deadlineNanos = nanos;
    }

    /** Starts the next attempt; the first one counts as a request for the budget. */
    public Attempt begin() {
        attempts++;
        if (attempts == 1) {
            budget.recordRequest();
        }
        Attempt attempt = current();
        notify(() -> listener.onAttempt(attempt));
        return attempt;
    }

    /** The attempt in progress or just finished. */
    public Attempt current() {
        return new Attempt(key, attempts);
    }

    /** The number of attempts begun so far. */
    public int attempts() {
        return attempts;
    }

    /** The key of the operation. */
    public String key() {
        return key;
    }

    /** Time left before the deadline, never negative. */
    public Duration remaining() {
        long elapsed = policy.ticker().read() - startNanos;
        return Duration.ofNanos(Math.max(0, deadlineNanos - elapsed));
    }

    /**
     * Decides whether the retryable outcome of the current attempt is retried. Returns the delay to
     * wait before the next attempt, or empty if the loop must stop and hand the outcome to the caller.
     * The budget is charged last, only for a retry that will really happen.
     */
    public Optional<Duration> scheduleRetry(RetryDecision decision) {
        Attempt failed = current();
        String reason = decision.reason();
        if (attempts >= policy.maxAttempts()) {
            return giveUp(failed, StopReason.MAX_ATTEMPTS, reason);
        }
        Duration backoff = policy.backoff(attempts - 1, previousBackoff);
        Duration delay = backoff;
        if (policy.honorRetryAfter()) {
            Optional<Duration> hint = decision.retryAfter();
            if (hint.isPresent() && hint.get().compareTo(delay) > 0) {
                delay = hint.get();
            }
        }
        if (delay.compareTo(remaining()) >= 0) {
            return giveUp(failed, StopReason.DEADLINE, reason);
        }
        if (!budget.tryAcquireRetry()) {
            notify(() -> listener.onBudgetExhausted(failed, reason));
            return giveUp(failed, StopReason.RETRY_BUDGET, reason);
        }
        previousBackoff = backoff;
        Duration scheduled = delay;
        notify(() -> listener.onRetryScheduled(failed, scheduled, reason));
        return Optional.of(delay);
    }

    /** Remembers a failure that is being retried, to attach to the final one. */
    public void recordRetriedFailure(Throwable failure) {
        failures.add(failure);
    }

    /** Attaches the failures of earlier attempts to the last one, so none is lost from view. */
    public <X extends Throwable> X withEarlierFailures(X last) {
        for (Throwable earlier : failures) {
            if (earlier != last) {
                last.addSuppressed(earlier);
            }
        }
        return last;
    }

    private Optional<Duration> giveUp(Attempt last, StopReason why, String reason) {
        notify(() -> listener.onGiveUp(last, why, reason));
        return Optional.empty();
    }

    private void notify(Runnable event) {
        try {
            event.run();
        } catch (RuntimeException e) {
            // A broken listener must not change the outcome of the call it observes.
            LOG.log(System.Logger.Level.WARNING, "RetryListener threw; ignored", e);
        }
    }
}
