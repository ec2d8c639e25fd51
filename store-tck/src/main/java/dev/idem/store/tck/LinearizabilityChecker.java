package dev.idem.store.tck;

import dev.idem.api.IdempotencyKey;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether a concurrent {@link History} is linearizable against {@link StoreModel}:
 * whether every operation can be given one instant between its invocation and its response
 * such that, in that order, each produced exactly what the sequential model allows. Every
 * operation of the SPI but purge is in the model, checkpoint and the step journal included.
 *
 * <p>The search is Wing and Gong's, with Lowe's memo of (operations already placed, model
 * state) so that equivalent prefixes are explored once. Keys are independent in the model,
 * so the history is split per key (time passing belongs to every key) and each part is
 * checked on its own, which keeps the search small.
 */
final class LinearizabilityChecker {
    private static final int MAX_STATES = 2_000_000;

    private LinearizabilityChecker() {
    }

    /**
     * Checks the history.
     *
     * @return empty if linearizable, else a description of the first key whose history is not
     */
    static Optional<String> check(List<History.Entry> history) {
        Map<IdempotencyKey, List<History.Entry>> perKey = new LinkedHashMap<>();
        for (History.Entry e : history) {
            if (e.op().key() != null) {
                perKey.computeIfAbsent(e.op().key(), k -> new ArrayList<>());
            }
        }
        for (History.Entry e : history) {
            IdempotencyKey k = e.op().key();
            if (k == null) {
                perKey.values().forEach(l -> l.add(e));
            } else {
                perKey.get(k).add(e);
            }
        }
        for (Map.Entry<IdempotencyKey, List<History.Entry>> part : perKey.entrySet()) {
            List<History.Entry> ops = new ArrayList<>(part.getValue());
            ops.sort(java.util.Comparator.comparingLong(History.Entry::invoked));
            Search search = new Search(ops);
            if (!search.run(new BitSet(ops.size()), StoreModel.initial())) {
                StringBuilder sb = new StringBuilder("history of key ").append(part.getKey())
                        .append(" is not linearizable").append(search.exhausted ? " (search budget exhausted)" : "")
                        .append(":\n");
                ops.forEach(e -> sb.append("  ").append(e).append('\n'));
                return Optional.of(sb.toString());
            }
        }
        return Optional.empty();
    }

    private static final class Search {
        private final List<History.Entry> ops;
        private final Set<Object> seen = new HashSet<>();
        boolean exhausted;

        Search(List<History.Entry> ops) {
            this.ops = ops;
        }

        private record Memo(BitSet placed, StoreModel.State state) {
        }

        boolean run(BitSet placed, StoreModel.State state) {
            int n = ops.size();
            int first = placed.nextClearBit(0);
            if (first >= n) {
                return true;
            }
            if (seen.size() > MAX_STATES) {
                exhausted = true;
                return false;
            }
            if (!seen.add(new Memo((BitSet) placed.clone(), state))) {
                return false;
            }
            // An operation may go next only if no pending operation responded before it was invoked.
            long earliestResponse = Long.MAX_VALUE;
            for (int i = first; i < n; i = placed.nextClearBit(i + 1)) {
                earliestResponse = Math.min(earliestResponse, ops.get(i).returned());
            }
            for (int i = first; i < n; i = placed.nextClearBit(i + 1)) {
                History.Entry e = ops.get(i);
                if (e.invoked() > earliestResponse) {
                    break;
                }
                for (StoreModel.Next next : StoreModel.step(state, e.op())) {
                    if (next.observation().equals(e.observation())) {
                        placed.set(i);
                        boolean ok = run(placed, next.state());
                        placed.clear(i);
                        if (ok) {
                            return true;
                        }
                    }
                }
            }
            return false;
        }
    }
}
