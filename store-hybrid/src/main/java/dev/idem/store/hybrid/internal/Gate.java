package dev.idem.store.hybrid.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.RecordState;
import dev.idem.store.redis.RedisScriptClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * The Redis side of the hybrid store: one script per step, each one round trip, each atomic on
 * the key's record. Every failure (client, server, a reply of the wrong shape) is thrown as
 * {@link GateException}; the store then carries on with the database alone.
 */
public final class Gate {
    /** How long a U record lasts when nothing better is known: long enough for usual TTLs. */
    static final long UNKNOWN_MS = 24L * 3600 * 1000;

    private final RedisScriptClient scripts;
    private final GateKeys keys;
    private final GateClock clock;
    private final long marginMs;
    private final long pendingMs;
    private final long padMs;
    private final int maxOutcomeBytes;

    /**
     * Creates the gate.
     *
     * @param scripts the user's client, as a script client (closed with the store)
     * @param keys where records live
     * @param clock the gate's clock
     * @param marginMs how long before a deadline the gate stops answering from a record
     * @param pendingMs how long a claim sent to the database blocks predictions at most
     * @param padMs how long Redis keeps a record past its expiry (garbage collection only)
     * @param maxOutcomeBytes the largest outcome the gate keeps
     */
    public Gate(RedisScriptClient scripts, GateKeys keys, GateClock clock, long marginMs, long pendingMs, long padMs,
            int maxOutcomeBytes) {
        this.scripts = scripts;
        this.keys = keys;
        this.clock = clock;
        this.marginMs = marginMs;
        this.pendingMs = pendingMs;
        this.padMs = padMs;
        this.maxOutcomeBytes = maxOutcomeBytes;
    }

    GateClock clock() {
        return clock;
    }

    static String nonce() {
        return Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
    }

    /** The claim script: answer, predict, or say the database must decide. */
    GateReply<ClaimAction> claim(IdempotencyKey key, byte[] fingerprint, long token, long leaseMs, long ttlMs, String nonce) {
        GateKeys.Located at = keys.locate(key);
        Object reply = run(GateScript.CLAIM, at.redisKey(), at.digest(), fingerprint, text(token), text(leaseMs),
                text(ttlMs), ascii(clock.nowArgument()), text(marginMs), ascii(nonce), text(pendingMs), text(padMs),
                ascii(clock.sentArgument()));
        return parse(reply, ClaimAction.class);
    }

    /**
     * Writes the database's record if the gate still holds what the caller saw.
     *
     * @param expect the nonce the caller saw ("" for none)
     * @param release whether the caller's pending claim ({@link ClaimAction#ASK_DATABASE}) is done
     * @param rec the database's record, with instants on the gate's clock, or null to write U
     * @param untilMs how long (from the script's now) a U written instead lasts at least
     * @return written, kept the same knowledge, or now unknown (see {@code fix.lua})
     */
    GateWrite fix(IdempotencyKey key, String expect, boolean release, @Nullable GateSnapshot rec, long untilMs) {
        GateKeys.Located at = keys.locate(key);
        byte[] none = new byte[0];
        boolean kept = rec != null && rec.outcome() != null && rec.outcome().length <= maxOutcomeBytes;
        Object reply = run(GateScript.FIX, at.redisKey(), at.digest(), ascii(expect), ascii(nonce()),
                ascii(release ? "1" : "0"), ascii(clock.nowArgument()), text(padMs),
                text(untilMs),
                letter(rec == null ? GateState.UNKNOWN : GateState.of(rec.state())),
                rec == null ? none : rec.fingerprint(), text(rec == null ? 0 : rec.token()),
                text(rec == null ? 0 : rec.attempt()), text(rec == null ? 0 : rec.created()),
                text(rec == null ? 0 : rec.lease()), text(rec == null ? 0 : rec.expires()),
                kept ? rec.outcome() : none, ascii(kept ? "0" : "1"));
        return write(reply, GateScript.FIX);
    }

    /** The database completed or released ({@code how}) the token's record. */
    GateWrite finished(IdempotencyKey key, long token, RecordState how, long untilMs) {
        GateKeys.Located at = keys.locate(key);
        return write(run(GateScript.FINISHED, at.redisKey(), at.digest(), text(token), ascii(clock.nowArgument()),
                text(padMs), ascii(nonce()), text(untilMs), letter(GateState.of(how))), GateScript.FINISHED);
    }

    /** The database extended the token's lease to at least {@code leaseAt} on the gate's clock. */
    GateWrite extended(IdempotencyKey key, long token, long leaseAt, long untilMs) {
        GateKeys.Located at = keys.locate(key);
        return write(run(GateScript.EXTENDED, at.redisKey(), at.digest(), text(token), ascii(clock.nowArgument()),
                text(padMs), ascii(nonce()), text(leaseAt), text(untilMs)), GateScript.EXTENDED);
    }

    /**
     * The database refused the token: the gate must not keep showing it in progress. With
     * {@code wait}, a predicted claim of that token is left alone and reported
     * ({@link GateWrite#PREDICTION_PENDING}): it may not have reached the database yet.
     */
    GateWrite refused(IdempotencyKey key, long token, boolean wait) {
        GateKeys.Located at = keys.locate(key);
        return write(run(GateScript.REFUSED, at.redisKey(), at.digest(), text(token), ascii(clock.nowArgument()),
                text(padMs), ascii(nonce()), text(marginMs), ascii(wait ? "1" : "0")), GateScript.REFUSED);
    }

    /**
     * The database journaled a step of the token's claim: the gate's IN_PROGRESS or RELEASED
     * record of that token becomes U, since the gate keeps no journal.
     */
    GateWrite journaled(IdempotencyKey key, long token) {
        GateKeys.Located at = keys.locate(key);
        return write(run(GateScript.REFUSED, at.redisKey(), at.digest(), text(token), ascii(clock.nowArgument()),
                text(padMs), ascii(nonce()), text(marginMs), ascii("J")), GateScript.REFUSED);
    }

    /**
     * A read of the database found {@code state} (null: nothing live); the reply says what the
     * gate made of it (see {@link ObservedAction}).
     */
    GateReply<ObservedAction> observed(IdempotencyKey key, @Nullable RecordState state, long token, int attempt,
            long untilMs) {
        GateKeys.Located at = keys.locate(key);
        return parse(run(GateScript.OBSERVED, at.redisKey(), at.digest(), ascii(clock.nowArgument()), text(padMs),
                ascii(nonce()), text(untilMs), ascii(state == null ? "0" : "1"),
                state == null ? ascii("-") : letter(GateState.of(state)), text(token), text(attempt)),
                ObservedAction.class);
    }

    private @Nullable Object run(GateScript script, byte[] key, byte[]... args) {
        try {
            // EVALSHA, and EVAL only after NOSCRIPT; a blocking client has answered when this returns.
            return scripts.run(script.script(), key, List.of(args)).toCompletableFuture().get();
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new GateException("Redis gate " + script.label() + " failed: " + cause.getMessage(), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GateException("Redis gate " + script.label() + ": interrupted", e);
        } catch (RuntimeException e) {
            throw new GateException("Redis gate " + script.label() + " failed: " + e.getMessage(), e);
        }
    }

    /** Closes the script client (which never closes the application's own client). */
    public void close() {
        scripts.close();
    }

    /** Decodes a reply of the claim or observed script: the one place its letters are read. */
    private <A extends Enum<A> & GateLetter> GateReply<A> parse(@Nullable Object reply, Class<A> actions) {
        if (!(reply instanceof List) || ((List<?>) reply).size() < 2 || ((List<?>) reply).size() > 12) {
            throw new GateException("Redis gate: unexpected reply " + reply, null);
        }
        List<?> r = (List<?>) reply;
        try {
            A action = GateLetter.decode(actions, single(r.get(0)));
            long now = (Long) r.get(1);
            clock.observed(now);
            String nonce = r.size() < 3 || r.get(2) == null ? "" : new String(bytes(r.get(2)), StandardCharsets.US_ASCII);
            if (r.size() <= 3) {
                return new GateReply<>(action, now, nonce, null, null, 0, 0, 0, -1, 0, null, false);
            }
            GateState state = GateLetter.decode(GateState.class, single(r.get(3)));
            if (state == GateState.UNKNOWN) {
                return new GateReply<>(action, now, nonce, state, null, 0, 0, 0, -1, (Long) r.get(9), null, false);
            }
            return new GateReply<>(action, now, nonce, state, bytes(r.get(4)), Long.parseLong(ascii(r.get(5))),
                    (int) (long) (Long) r.get(6), (Long) r.get(7), r.get(8) == null ? -1 : (Long) r.get(8),
                    (Long) r.get(9), r.get(10) == null ? null : bytes(r.get(10)), r.get(11) == null);
        } catch (RuntimeException e) {
            throw new GateException("Redis gate: unreadable reply: " + e, e);
        }
    }

    /** Decodes the one-letter reply of a script that tells the gate the database's news. */
    private static GateWrite write(@Nullable Object reply, GateScript script) {
        if (reply instanceof byte[] && ((byte[]) reply).length == 1) {
            try {
                return GateLetter.decode(GateWrite.class, ((byte[]) reply)[0]);
            } catch (IllegalArgumentException e) {
                throw new GateException("Redis gate " + script.label() + ": unexpected reply: " + e.getMessage(), e);
            }
        }
        throw new GateException("Redis gate " + script.label() + ": unexpected reply " + reply, null);
    }

    /** The first byte of a reply's letter field (the scripts send one letter). */
    private static int single(@Nullable Object o) {
        return bytes(o)[0];
    }

    private static byte[] letter(GateLetter word) {
        return new byte[] {(byte) word.letter()};
    }

    private static byte[] bytes(@Nullable Object o) {
        if (o instanceof byte[]) {
            return (byte[]) o;
        }
        throw new IllegalArgumentException("expected bulk text but got " + o);
    }

    private static String ascii(@Nullable Object o) {
        return new String(bytes(o), StandardCharsets.US_ASCII);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] text(long n) {
        return ascii(Long.toString(n));
    }
}
