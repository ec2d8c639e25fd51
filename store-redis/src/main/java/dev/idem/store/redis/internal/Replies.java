package dev.idem.store.redis.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

/**
 * Strict readers for script replies. Anything unexpected (a wrong type, a missing field,
 * text that is not a number) throws {@link MalformedReplyException}: a reply we cannot
 * read must surface as an error, never be mistaken for "absent".
 */
public final class Replies {
    private Replies() {
    }

    /** A reply that does not have the shape the script promises. */
    public static final class MalformedReplyException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** Creates the exception. */
        public MalformedReplyException(String message) {
            super(message);
        }
    }

    /** The reply as a list of {@code min..max} elements. */
    public static List<?> list(Object reply, int min, int max, String what) {
        if (!(reply instanceof List)) {
            throw new MalformedReplyException(what + ": expected an array reply but got " + describe(reply));
        }
        List<?> list = (List<?>) reply;
        if (list.size() < min || list.size() > max) {
            throw new MalformedReplyException(
                    what + ": expected " + min + ".." + max + " elements but got " + list.size());
        }
        return list;
    }

    /**
     * The claim script's reply: how it ended, the server time, and the record after it, in
     * which a nil fingerprint or token stands for the caller's own.
     *
     * @param key the key
     * @param reply the script's reply
     * @param fingerprint the caller's fingerprint
     * @param token the caller's token
     * @return the claim's result
     */
    public static ClaimResult claim(IdempotencyKey key, Object reply, byte[] fingerprint, long token) {
        List<?> list = list(reply, 11, 11, "claim reply");
        char how = letter(list.get(0), "claim status");
        Instant now = Instant.ofEpochMilli(integer(list.get(1), "server time"));
        StoredRecord record = record(key, list, 2, fingerprint, token);
        switch (how) {
            case 'A':
                return ClaimResult.acquired(record, now);
            case 'T':
                return ClaimResult.takenOver(record, now);
            case 'E':
                return ClaimResult.existing(record, now);
            default:
                throw new MalformedReplyException("claim status: unknown code '" + how + "'");
        }
    }

    /** An integer reply, or bulk text holding a decimal integer. */
    public static long integer(Object value, String what) {
        if (value instanceof Long) {
            return (Long) value;
        }
        if (value instanceof byte[]) {
            byte[] b = (byte[]) value;
            long parsed = parseDecimal(b);
            if (parsed != Long.MIN_VALUE || isLongMin(b)) {
                return parsed;
            }
            String text = new String(b, StandardCharsets.US_ASCII);
            throw new MalformedReplyException(what + ": expected an integer but got '" + abbreviate(text) + "'");
        }
        throw new MalformedReplyException(what + ": expected an integer but got " + describe(value));
    }

    /** A 0/1 integer reply. */
    public static boolean flag(Object reply, String what) {
        long v = integer(reply, what);
        if (v != 0 && v != 1) {
            throw new MalformedReplyException(what + ": expected 0 or 1 but got " + v);
        }
        return v == 1;
    }

    /** A non-null bulk reply. */
    public static byte[] bytes(Object value, String what) {
        if (value instanceof byte[]) {
            return (byte[]) value;
        }
        throw new MalformedReplyException(what + ": expected a bulk string but got " + describe(value));
    }

    /** Bulk text of exactly one ASCII character. */
    public static char letter(Object value, String what) {
        byte[] b = bytes(value, what);
        if (b.length != 1) {
            throw new MalformedReplyException(what + ": expected one letter but got " + b.length + " bytes");
        }
        return (char) (b[0] & 0xFF);
    }

    /**
     * Reads a record laid out as {@code state, fingerprint, token, attempt, leaseUntil,
     * expiresAt, outcome, createdAt, journal} starting at {@code offset}.
     *
     * @param key the record's key
     * @param reply the script's reply
     * @param offset where the record starts in it
     * @return the record
     */
    public static StoredRecord record(IdempotencyKey key, List<?> reply, int offset) {
        return record(key, reply, offset, null, null);
    }

    /**
     * Reads a record like {@link #record(IdempotencyKey, List, int)}, where a nil fingerprint
     * or token stands for the caller's own (the claim script leaves out what the caller sent).
     *
     * @param key the record's key
     * @param reply the script's reply
     * @param offset where the record starts in it
     * @param ownFingerprint the fingerprint a nil one stands for, or null if nil is malformed
     * @param ownToken the token a nil one stands for, or null if nil is malformed
     * @return the record
     */
    public static StoredRecord record(IdempotencyKey key, List<?> reply, int offset, byte[] ownFingerprint,
            Long ownToken) {
        char code = letter(reply.get(offset), "record state");
        RecordState state;
        try {
            state = RecordState.fromCode(code);
        } catch (IllegalArgumentException e) {
            throw new MalformedReplyException("record state: " + e.getMessage());
        }
        Object fp = reply.get(offset + 1);
        byte[] fingerprint = fp == null && ownFingerprint != null ? ownFingerprint : bytes(fp, "record fingerprint");
        Object t = reply.get(offset + 2);
        long token = t == null && ownToken != null ? ownToken : integer(t, "record token");
        long attempt = integer(reply.get(offset + 3), "record attempt");
        if (attempt < 1 || attempt > Integer.MAX_VALUE) {
            throw new MalformedReplyException("record attempt: out of range: " + attempt);
        }
        Instant lease = state == RecordState.IN_PROGRESS
                ? Instant.ofEpochMilli(integer(reply.get(offset + 4), "record lease deadline"))
                : null;
        Instant expires = Instant.ofEpochMilli(integer(reply.get(offset + 5), "record expiry"));
        byte[] outcome = null;
        if (state == RecordState.COMPLETED) {
            outcome = bytes(reply.get(offset + 6), "record outcome");
        }
        Instant created = Instant.ofEpochMilli(integer(reply.get(offset + 7), "record creation time"));
        Object j = reply.get(offset + 8);
        byte[] journal = state == RecordState.COMPLETED || j == null ? null : bytes(j, "record journal");
        return new StoredRecord(key, state, fingerprint, token, (int) attempt, created, lease, expires, outcome,
                journal);
    }

    // A decimal long without making a String; Long.MIN_VALUE stands for "not a number" (the
    // one value that really is Long.MIN_VALUE is told apart by isLongMin).
    private static long parseDecimal(byte[] b) {
        int n = b.length;
        if (n == 0 || n > 20) {
            return Long.MIN_VALUE;
        }
        boolean negative = b[0] == '-';
        int i = negative ? 1 : 0;
        if (i == n) {
            return Long.MIN_VALUE;
        }
        long v = 0;
        for (; i < n; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return Long.MIN_VALUE;
            }
            // Accumulate negatively: the negative range is one larger.
            if (v < (Long.MIN_VALUE + d) / 10) {
                return Long.MIN_VALUE;
            }
            v = v * 10 - d;
        }
        if (!negative) {
            return v == Long.MIN_VALUE ? Long.MIN_VALUE : -v;
        }
        return v;
    }

    private static boolean isLongMin(byte[] b) {
        return "-9223372036854775808".equals(new String(b, StandardCharsets.US_ASCII));
    }

    private static String describe(Object value) {
        if (value == null) {
            return "nil";
        }
        return value.getClass().getSimpleName();
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
