package dev.idem.engine;

import java.util.ArrayDeque;

/**
 * The queue in front of the store for an engine's asynchronous calls: at most {@code width} of
 * them are under way at once, the rest wait here in no thread. A call of a held key (its renewals,
 * its outcome) goes before every waiting claim, and claims never take the slots kept for held keys
 * (a quarter of a non-blocking store's width; a quarter more on top of a blocking store's): however
 * many duplicates wait, a live holder's calls find a slot at once, and the store never has more
 * than the claims' share of the engine's calls ahead of them.
 *
 * <p>The lane only counts: how a call is made is its own ({@link LanedPort}, {@link NonBlockingPort}).
 * A call {@linkplain Call#start() starts} once it has a slot and calls {@link #ended} exactly once
 * when it is over; the slot then goes to the next waiting call, which starts on that thread. A call
 * that ends while it starts (a stage already complete, an executor that refuses) does not recurse:
 * the calls it frees start in a loop.
 */
final class StoreLane {
    /** A store call waiting for its slot. */
    abstract static class Call {
        final boolean holdsClaim;

        Call(boolean holdsClaim) {
            this.holdsClaim = holdsClaim;
        }

        /** Makes the store call, which then ends with {@link StoreLane#ended} exactly once. */
        abstract void start();
    }

    private final int width;
    private final int claimsWidth;
    private final ArrayDeque<Call> holding = new ArrayDeque<>();
    private final ArrayDeque<Call> claims = new ArrayDeque<>();
    /** Per thread, the calls it is starting: a call freed while another starts waits there. */
    private final ThreadLocal<Starter> starting = ThreadLocal.withInitial(Starter::new);
    private int running;
    private int runningClaims;

    /** A lane {@code width} wide whose last quarter is kept for held keys. */
    StoreLane(int width) {
        this(width, width / 4);
    }

    /**
     * @param width calls under way at most
     * @param kept how many of them only held keys' calls may take
     */
    StoreLane(int width, int kept) {
        if (width < 1 || kept < 0 || kept >= width) {
            throw new IllegalArgumentException("a lane needs a positive width and fewer slots kept (" + kept
                    + ") than its width (" + width + ")");
        }
        this.width = width;
        this.claimsWidth = width - kept;
    }

    /** Starts {@code call} when a slot is free for it. */
    void enter(Call call) {
        synchronized (this) {
            if (!admit(call)) {
                (call.holdsClaim ? holding : claims).add(call);
                return;
            }
        }
        start(call);
    }

    /** {@code call} is over: its slot goes to the next waiting call (held keys first), started here. */
    void ended(Call call) {
        Call next;
        synchronized (this) {
            running--;
            if (!call.holdsClaim) {
                runningClaims--;
            }
            next = next();
        }
        if (next != null) {
            start(next);
        }
    }

    private Call next() {
        Call next = holding.peek();
        if (next != null && admit(next)) {
            return holding.poll();
        }
        next = claims.peek();
        if (next != null && admit(next)) {
            return claims.poll();
        }
        return null;
    }

    private boolean admit(Call call) {
        if (running >= width || !call.holdsClaim && runningClaims >= claimsWidth) {
            return false;
        }
        running++;
        if (!call.holdsClaim) {
            runningClaims++;
        }
        return true;
    }

    private void start(Call first) {
        Starter starter = starting.get();
        if (starter.active) {
            starter.queue.add(first);
            return;
        }
        starter.active = true;
        try {
            for (Call call = first; call != null; call = starter.queue.poll()) {
                call.start();
            }
        } finally {
            starter.active = false;
        }
    }

    /** What one thread is starting: calls freed meanwhile wait in its queue. */
    private static final class Starter {
        final ArrayDeque<Call> queue = new ArrayDeque<>(2);
        boolean active;
    }

    /** Store calls under way now, for tests. */
    synchronized int running() {
        return running;
    }
}
