package dev.idem.engine.tck;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The downstream systems of one fault-injection run, seen from outside the engine: every
 * effect a worker's work caused, with the downstream key it carried, and which effect each
 * worker has caused but not yet got on record (journaled or completed).
 */
final class Ledger {
    /** One effect as the downstream system saw it. */
    record Effect(String name, String downstreamKey, String worker) {
        @Override
        public String toString() {
            return name + " by " + worker;
        }
    }

    private final List<Effect> effects = new ArrayList<>();
    private final Map<String, String> unrecorded = new HashMap<>();

    void effect(String name, String downstreamKey, String worker) {
        effects.add(new Effect(name, downstreamKey, worker));
        unrecorded.put(worker, name);
    }

    /** A checkpoint or completion of {@code worker} landed: its last effect is on record. */
    void recorded(String worker) {
        unrecorded.remove(worker);
    }

    /** The effect {@code worker} caused that no write of it has put on record yet, or null. */
    String unrecorded(String worker) {
        return unrecorded.get(worker);
    }

    int size() {
        return effects.size();
    }

    /**
     * What is wrong with the effects, or null: an effect outside {@code allowed}, an effect that
     * ran more than once (twice is allowed for {@code exposed}, the one the fault left to run
     * again, provided both runs carried the same downstream key), or, if {@code complete}, an
     * allowed effect that never ran.
     */
    String violation(Set<String> allowed, String exposed, boolean complete) {
        Map<String, List<Effect>> byName = new TreeMap<>();
        for (Effect e : effects) {
            if (!allowed.contains(e.name())) {
                return "unexpected effect " + e;
            }
            byName.computeIfAbsent(e.name(), n -> new ArrayList<>()).add(e);
        }
        for (Map.Entry<String, List<Effect>> entry : byName.entrySet()) {
            List<Effect> runs = entry.getValue();
            int most = entry.getKey().equals(exposed) ? 2 : 1;
            if (runs.size() > most) {
                return "effect " + entry.getKey() + " ran " + runs.size() + " times " + runs + (most == 2 ? ""
                        : " though the fault exposed " + (exposed == null ? "no effect" : exposed));
            }
            if (runs.stream().map(Effect::downstreamKey).distinct().count() > 1) {
                return "effect " + entry.getKey() + " ran again with another downstream key " + runs;
            }
        }
        if (complete) {
            for (String name : allowed) {
                if (!byName.containsKey(name)) {
                    return "the key settled with a value but effect " + name + " never ran";
                }
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return effects.toString();
    }
}
