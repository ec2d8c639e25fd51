package dev.idem.api.time;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The point in time by which a caller stops waiting for an answer: a budget counted from when the
 * deadline was made, measured on a monotonic {@link Ticker} (never on a wall clock, so a clock
 * stepped by NTP neither stretches nor cuts it). Immutable and thread-safe.
 *
 * <p>The engine takes one per call ({@code CallOptions.builder().deadline(...)}), the HTTP
 * adapters make one from a request's {@code X-Request-Timeout} header, and the work sees its
 * call's deadline ({@code ExecutionContext.deadline()}). While blocking work runs, the engine also
 * binds its deadline to the work's thread ({@link #current()}), where idem-client picks it up, so
 * a call the work makes to another service carries the time its own caller has left. Code that
 * calls out from another thread (a reactive handler) binds it there itself with {@link #bind()}.
 *
 * <p>A budget of zero or less is a deadline that has already passed; one longer than
 * {@link #MAX_BUDGET} is held as {@link #MAX_BUDGET}.
 */
public final class Deadline {
    /**
     * The longest budget a deadline holds, 3650 days (the engine's longest duration): a longer one
     * is read as this, which is no limit in practice, and keeps every sum of nanoseconds in range.
     */
    public static final Duration MAX_BUDGET = Duration.ofDays(3650);

    private static final ThreadLocal<Deadline> CURRENT = new ThreadLocal<>();

    private final Ticker ticker;
    private final long at;

    private Deadline(Ticker ticker, long at) {
        this.ticker = ticker;
        this.at = at;
    }

    /**
     * The deadline {@code budget} from now, on {@link Ticker#system()}.
     *
     * @param budget the time the caller gives; zero or negative for a deadline already passed
     * @return the deadline
     */
    public static Deadline after(Duration budget) {
        return after(budget, Ticker.system());
    }

    /**
     * The deadline {@code budget} from now, on {@code ticker} (pass the engine's ticker so that a
     * test's simulated time moves it).
     *
     * @param budget the time the caller gives; zero or negative for a deadline already passed,
     *     over {@link #MAX_BUDGET} read as {@link #MAX_BUDGET}
     * @param ticker what the deadline is measured on
     * @return the deadline
     */
    public static Deadline after(Duration budget, Ticker ticker) {
        Objects.requireNonNull(budget, "budget");
        Objects.requireNonNull(ticker, "ticker");
        long nanos = budget.isNegative() ? 0 : budget.compareTo(MAX_BUDGET) > 0 ? MAX_BUDGET.toNanos()
                : budget.toNanos();
        return new Deadline(ticker, ticker.read() + nanos);
    }

    /**
     * The time left before the deadline, zero once it has passed.
     *
     * @return the time left, never negative
     */
    public Duration remaining() {
        return Duration.ofNanos(remainingNanos());
    }

    /**
     * The time left in nanoseconds, zero once the deadline has passed.
     *
     * @return the nanoseconds left, never negative
     */
    public long remainingNanos() {
        // Ticker readings have an arbitrary origin: only differences are compared.
        return Math.max(0, at - ticker.read());
    }

    /**
     * Whether the deadline has passed (no time is left).
     *
     * @return whether the deadline has passed
     */
    public boolean isExpired() {
        return at - ticker.read() <= 0;
    }

    /**
     * Whichever of this deadline and {@code other} leaves less time (this one on a tie).
     *
     * @param other another deadline, on any ticker
     * @return the earlier deadline
     */
    public Deadline earlier(Deadline other) {
        Objects.requireNonNull(other, "other");
        return other.remainingNanos() < remainingNanos() ? other : this;
    }

    /**
     * The ticker this deadline is measured on.
     *
     * @return the ticker
     */
    public Ticker ticker() {
        return ticker;
    }

    /**
     * The deadline bound to the calling thread: the engine binds its call's deadline while blocking
     * work runs; {@link #bind()} binds one explicitly.
     *
     * @return the bound deadline, if any
     */
    public static Optional<Deadline> current() {
        return Optional.ofNullable(CURRENT.get());
    }

    /**
     * Binds this deadline to the calling thread until the returned scope is closed, which restores
     * what was bound before: {@code try (Deadline.Scope s = ctx.deadline().get().bind()) { client.send(...); }}.
     *
     * @return the scope to close on the same thread
     */
    public Scope bind() {
        Deadline previous = CURRENT.get();
        CURRENT.set(this);
        Thread owner = Thread.currentThread();
        return () -> {
            if (Thread.currentThread() != owner) {
                throw new IllegalStateException("a Deadline.Scope must be closed on the thread that opened it");
            }
            if (previous == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(previous);
            }
        };
    }

    /** A binding made by {@link #bind()}; closing it restores the thread's previous deadline. */
    @FunctionalInterface
    public interface Scope extends AutoCloseable {
        /** Restores the deadline bound before; must be called on the thread that bound this one. */
        @Override
        void close();
    }

    @Override
    public String toString() {
        return "Deadline[" + remaining().toMillis() + " ms left]";
    }
}
