package dev.idem.examples;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A simulated external system (stock, payments, shipping). One that deduplicates does what most
 * payment providers do with an idempotency key: a call with a key it has seen answers the first
 * call's id and applies nothing; a call without a key always applies its effect. One that does not
 * deduplicate (a bank without idempotency keys) applies every call, but keeps the caller's
 * reference with the effect, so a caller can look an effect up by it ({@link #find}). Every
 * effect applied is reported to {@code applied}. Thread-safe.
 */
public final class DownstreamService {
    private final String name;
    private final String idPrefix;
    private final boolean deduplicates;
    private final Consumer<String> applied;
    private final Map<String, String> idsByKey = new HashMap<>();
    private long calls;
    private long nextId;

    /**
     * A service with no calls yet.
     *
     * @param name what it is called in the audit, and the effect it reports
     * @param idPrefix the prefix of the ids it hands out
     * @param deduplicates whether a call with a key it has seen applies nothing
     * @param applied told the service's name each time it applies an effect
     */
    public DownstreamService(String name, String idPrefix, boolean deduplicates, Consumer<String> applied) {
        this.name = name;
        this.idPrefix = idPrefix;
        this.deduplicates = deduplicates;
        this.applied = applied;
    }

    /**
     * Applies this service's effect, unless it deduplicates and {@code key} was seen before.
     *
     * @param key the caller's idempotency key or reference for this call, or null to send none
     * @return the id of the effect: the first call's for a key seen before, if it deduplicates
     */
    public synchronized String call(String key) {
        calls++;
        if (key != null && deduplicates) {
            String earlier = idsByKey.get(key);
            if (earlier != null) {
                return earlier;
            }
        }
        String id = idPrefix + "-" + (++nextId);
        if (key != null) {
            idsByKey.putIfAbsent(key, id);
        }
        applied.accept(name);
        return id;
    }

    /**
     * The effect applied for a reference, looked up as a reconciler does.
     *
     * @param key the reference the caller sent
     * @return the first effect's id, if any call carried it
     */
    public synchronized Optional<String> find(String key) {
        return Optional.ofNullable(idsByKey.get(key));
    }

    /** Forgets every call: the next crash schedule starts from an empty system. */
    public synchronized void reset() {
        idsByKey.clear();
        nextId = 0;
    }

    /**
     * How many calls reached this service, deduplicated or not, since it was built.
     *
     * @return the number of calls
     */
    public synchronized long calls() {
        return calls;
    }

    /**
     * What the audit calls this service.
     *
     * @return its name
     */
    public String name() {
        return name;
    }
}
