package dev.idem.store.tck;

import dev.idem.api.store.IdempotencyStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A concurrent history: every operation with the moment it was invoked and the moment its
 * response came back, on one logical clock shared by all threads. An operation that
 * responded before another was invoked precedes it in real time; any others overlapped.
 * Thread-safe.
 */
final class History {
    /** One completed operation. */
    record Entry(String thread, StoreOp op, String observation, long invoked, long returned) {
        /** Whether this call and {@code other} were in flight at one moment (neither returned before the other began). */
        boolean overlaps(Entry other) {
            return other != null && invoked < other.returned && other.invoked < returned;
        }

        @Override
        public String toString() {
            return String.format("[%4d..%4d] %-14s %s -> %s", invoked, returned, thread, op, observation);
        }
    }

    private final AtomicLong ticks = new AtomicLong();
    private final List<Entry> entries = Collections.synchronizedList(new ArrayList<>());

    /**
     * Applies {@code op} to {@code store} and records it.
     *
     * @return the observation
     */
    String run(String thread, StoreOp op, IdempotencyStore store) throws Exception {
        return call(thread, op, store).observation();
    }

    /**
     * Applies {@code op} to {@code store} and records it.
     *
     * @return the entry recorded, with the moments the call was invoked and returned
     */
    Entry call(String thread, StoreOp op, IdempotencyStore store) throws Exception {
        long invoked = ticks.incrementAndGet();
        String observation = op.apply(store);
        long returned = ticks.incrementAndGet();
        Entry entry = new Entry(thread, op, observation, invoked, returned);
        entries.add(entry);
        return entry;
    }

    /** The entries so far, in invocation order. */
    List<Entry> entries() {
        synchronized (entries) {
            List<Entry> copy = new ArrayList<>(entries);
            copy.sort(Comparator.comparingLong(Entry::invoked));
            return copy;
        }
    }
}
