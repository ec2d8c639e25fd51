package dev.idem.store.tck.mutants;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Widens a mutant's check-then-act window on purpose, so that the kit's lockstep races catch
 * a non-atomic operation every run instead of by luck. Only calls made from the kit's
 * lockstep threads ({@code tck-lockstep-<parties>-<index>}) are gated; every other call
 * passes straight through.
 *
 * <p>Per key: every gated call first waits until all parties of the round have arrived. A
 * non-atomic call then reads and holds its window open until another call on the key has
 * done something (or it is the last one in flight); an atomic call waits until every
 * non-atomic call that arrived has read. So the bad interleaving (read, someone else's
 * write, blind write) is the one that happens. Every wait is bounded.
 */
final class RaceGate {
    private static final long WAIT_MILLIS = 5_000;

    private static final class Slot {
        int arrivals;
        int unread;
        int inFlight;
        long events;
    }

    private final Map<Object, Slot> slots = new HashMap<>();

    /** The number of parties in the calling thread's lockstep round, or 0 outside one. */
    private static int parties() {
        String name = Thread.currentThread().getName();
        if (!name.startsWith("tck-lockstep-")) {
            return 0;
        }
        String rest = name.substring("tck-lockstep-".length());
        return Integer.parseInt(rest.substring(0, rest.indexOf('-')));
    }

    /** Enters a call on {@code key}; returns whether the call is gated. */
    synchronized boolean arrive(Object key, boolean nonAtomic) throws InterruptedException {
        int parties = parties();
        if (parties < 2) {
            return false;
        }
        Slot s = slots.computeIfAbsent(key, k -> new Slot());
        s.arrivals++;
        s.inFlight++;
        if (nonAtomic) {
            s.unread++;
        }
        notifyAll();
        await(() -> s.arrivals >= parties);
        if (!nonAtomic) {
            await(() -> s.unread == 0);
        }
        return true;
    }

    /** A non-atomic call has read: hold the window open until another call on the key acts. */
    synchronized void window(Object key) throws InterruptedException {
        Slot s = slots.get(key);
        s.unread--;
        s.events++;
        long seen = s.events;
        notifyAll();
        await(() -> s.events != seen || s.inFlight <= 1);
    }

    /** Leaves a gated call. */
    synchronized void leave(Object key) {
        Slot s = slots.get(key);
        s.inFlight--;
        s.events++;
        notifyAll();
    }

    private void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (!condition.getAsBoolean()) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return;
            }
            wait(left);
        }
    }
}
