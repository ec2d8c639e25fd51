package dev.idem.examples;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A simulated external system (stock, payments, shipping) that, like most payment providers,
 * deduplicates by an idempotency key when the caller sends one: a call with a key it has seen
 * answers the first call's id and applies nothing. A call without a key always applies its
 * effect, which is what an at-least-once caller gets from a system with no deduplication.
 * Thread-safe; every effect it applied is kept for the audit.
 */
public final class DownstreamService {
    private final String name;
    private final String idPrefix;
    private final Map<String, String> idsByKey = new HashMap<>();
    private final Map<String, List<String>> effectsByOrder = new HashMap<>();
    private long calls;
    private long nextId;

    /**
     * A service with no calls yet.
     *
     * @param name what it is called in the audit
     * @param idPrefix the prefix of the ids it hands out
     */
    public DownstreamService(String name, String idPrefix) {
        this.name = name;
        this.idPrefix = idPrefix;
    }

    /**
     * Applies this service's effect for an order, unless {@code key} was seen before.
     *
     * @param orderId the order the effect is for
     * @param key the caller's idempotency key for this call, or null to send none
     * @return the id of the effect: the first call's for a key seen before
     */
    public synchronized String call(String orderId, String key) {
        calls++;
        if (key != null) {
            String earlier = idsByKey.get(key);
            if (earlier != null) {
                return earlier;
            }
        }
        String id = idPrefix + "-" + (++nextId);
        if (key != null) {
            idsByKey.put(key, id);
        }
        effectsByOrder.computeIfAbsent(orderId, o -> new ArrayList<>()).add(id);
        return id;
    }

    /**
     * The effects applied for an order, oldest first.
     *
     * @param orderId the order
     * @return the ids of the effects applied for it (empty if none)
     */
    public synchronized List<String> effects(String orderId) {
        return List.copyOf(effectsByOrder.getOrDefault(orderId, List.of()));
    }

    /**
     * How many calls reached this service, deduplicated or not.
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
