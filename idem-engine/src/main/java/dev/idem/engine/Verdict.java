package dev.idem.engine;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEvent.Type;
import java.time.Duration;

/**
 * What a call makes of a record it read, by whichever path ({@link Execution#judge}): the value
 * both drivers act on, and what they note besides (the call's reconciled fingerprint, an event, a
 * near-cache entry, a warning), which {@link Execution#apply(Verdict)} carries out in one place.
 *
 * <p>Judging is a plain function: a verdict is computed from the record and the call's state
 * without a store, a thread or a side effect, so it is tested with values alone
 * ({@code VerdictTest}).
 */
final class Verdict<T> {
    /** What the driver does next. */
    enum Kind {
        /** The key is this call's: run the work ({@link #journal()} the steps a previous attempt journaled). */
        RUN,
        /** The stored outcome answers: {@link #replay()}. */
        REPLAY,
        /** The call ends with {@link #answer()} thrown: nothing is held. */
        ANSWER,
        /** The key is in progress: claim again after {@link #pauseMillis()}. */
        PAUSE,
        /** The key was won but must be given back unrun: carry out {@link #ending()}; its answer is the call's. */
        END
    }

    private static final Verdict<?> RUN_PLAIN = new Verdict<>(Kind.RUN, null, null, null, 0, null, null, null,
            0, null, null, 0, 0, null, null);

    private final Kind kind;
    private final Result<T> replay;
    private final RuntimeException answer;
    private final Ending<T> ending;
    private final long pauseMillis;
    private final Duration hint;
    private final byte[] journal;
    private final Type event;
    private final int attempt;
    private final Duration recordAge;
    private final StoredRecord cached;
    private final long cachedSince;
    private final long cachedLeftNanos;
    private final byte[] reconciled;
    private final String warning;

    /**
     * @param cached a completed record for the near cache, kept from {@code cachedSince} (a ticker
     *     reading) for {@code cachedLeftNanos}; null for none
     * @param reconciled the request's fingerprint in the older version the record holds, or null
     * @param warning what to log, or null
     */
    Verdict(Kind kind, Result<T> replay, RuntimeException answer, Ending<T> ending, long pauseMillis,
            Duration hint, byte[] journal, Type event, int attempt, Duration recordAge, StoredRecord cached,
            long cachedSince, long cachedLeftNanos, byte[] reconciled, String warning) {
        this.kind = kind;
        this.replay = replay;
        this.answer = answer;
        this.ending = ending;
        this.pauseMillis = pauseMillis;
        this.hint = hint;
        this.journal = journal;
        this.event = event;
        this.attempt = attempt;
        this.recordAge = recordAge;
        this.cached = cached;
        this.cachedSince = cachedSince;
        this.cachedLeftNanos = cachedLeftNanos;
        this.reconciled = reconciled;
        this.warning = warning;
    }

    /** The key is this call's and no journal was handed over: shared, it costs a first execution nothing. */
    @SuppressWarnings("unchecked")
    static <T> Verdict<T> run() {
        return (Verdict<T>) RUN_PLAIN;
    }

    /** The key is this call's, with a previous attempt's journal (decrypted), or taken over ({@code event}). */
    static <T> Verdict<T> run(byte[] journal, Type event, int attempt) {
        return new Verdict<>(Kind.RUN, null, null, null, 0, null, journal, event, attempt, null, null, 0, 0, null,
                null);
    }

    /**
     * The call ends with {@code answer} thrown, noting {@code event} if it is not null, and the
     * request's older fingerprint {@code reconciled} if it is not null.
     */
    static <T> Verdict<T> answer(RuntimeException answer, Type event, int attempt, byte[] reconciled) {
        return new Verdict<>(Kind.ANSWER, null, answer, null, 0, null, null, event, attempt, null, null, 0, 0,
                reconciled, null);
    }

    /** Claim again after {@code pauseMillis}; {@code hint} is the 409's if the pause is cut short. */
    static <T> Verdict<T> pause(long pauseMillis, Duration hint, Type event, int attempt, byte[] reconciled) {
        return new Verdict<>(Kind.PAUSE, null, null, null, pauseMillis, hint, null, event, attempt, null, null, 0, 0,
                reconciled, null);
    }

    /** The key was won but is given back unrun through {@code ending}, with {@code warning} logged. */
    static <T> Verdict<T> end(Ending<T> ending, Type event, int attempt, String warning) {
        return new Verdict<>(Kind.END, null, null, ending, 0, null, null, event, attempt, null, null, 0, 0, null,
                warning);
    }

    Kind kind() {
        return kind;
    }

    /** {@link Kind#REPLAY}'s result. */
    Result<T> replay() {
        return replay;
    }

    /** {@link Kind#ANSWER}'s exception. */
    RuntimeException answer() {
        return answer;
    }

    /** {@link Kind#END}'s ending. */
    Ending<T> ending() {
        return ending;
    }

    /** {@link Kind#PAUSE}'s pause, at least a millisecond. */
    long pauseMillis() {
        return pauseMillis;
    }

    /** The 409 a caller gets if its {@link Kind#PAUSE} is cut short. */
    RequestInProgressException conflict(IdempotencyKey key) {
        return new RequestInProgressException(key, hint);
    }

    /** {@link Kind#RUN}'s journal, decrypted, or null. */
    byte[] journal() {
        return journal;
    }

    /** The event to emit, or null. */
    Type event() {
        return event;
    }

    int attempt() {
        return attempt;
    }

    /** The replayed record's age on the store's clock, or null. */
    Duration recordAge() {
        return recordAge;
    }

    /** The completed record the near cache keeps, or null. */
    StoredRecord cached() {
        return cached;
    }

    long cachedSince() {
        return cachedSince;
    }

    long cachedLeftNanos() {
        return cachedLeftNanos;
    }

    /** The request's fingerprint in the older version the record holds, from now on the call's; or null. */
    byte[] reconciled() {
        return reconciled;
    }

    /** The warning to log, or null. */
    String warning() {
        return warning;
    }

    @Override
    public String toString() {
        return "Verdict[" + kind + (event != null ? ", " + event : "") + "]";
    }
}
