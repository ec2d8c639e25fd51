package dev.idem.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Records listener events as strings, in order. Thread-safe. */
final class RecordingListener implements RetryListener {

    private final List<String> events = new ArrayList<>();

    @Override
    public synchronized void onAttempt(Attempt attempt) {
        events.add("attempt " + attempt.number());
    }

    @Override
    public synchronized void onRetryScheduled(Attempt failed, Duration delay, String reason) {
        events.add("retry after " + failed.number() + " in " + delay.toMillis() + "ms: " + reason);
    }

    @Override
    public synchronized void onBudgetExhausted(Attempt failed, String reason) {
        events.add("budget exhausted after " + failed.number());
    }

    @Override
    public synchronized void onGiveUp(Attempt last, StopReason why, String reason) {
        events.add("gave up after " + last.number() + ": " + why);
    }

    synchronized List<String> events() {
        return List.copyOf(events);
    }
}
