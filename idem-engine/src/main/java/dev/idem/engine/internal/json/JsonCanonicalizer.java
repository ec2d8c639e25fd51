package dev.idem.engine.internal.json;

import dev.idem.api.InvalidRequestException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.security.MessageDigest;

/**
 * Strict JSON into its canonical form: RFC 8785 layout, with numbers by exact decimal value
 * (see {@link Es6Numbers}). Strict means: one value and nothing after it, no duplicate member
 * names, no lone surrogates (escaped or not), no invalid UTF-8, no NaN or Infinity, no
 * comments or other extensions. Members matched by a {@link PointerSet} are left out.
 *
 * <p>It streams: one pass writes the canonical tokens, a second copies them with each
 * object's members in order (see {@link CanonicalTape}), both linear in the input whatever
 * its depth. The work buffers are kept per thread and reused, so a call allocates only its
 * result (nothing at all when it is digested); a thread keeps at most
 * {@value #MAX_RETAINED_BYTES} bytes of them between calls, and a larger document is handled
 * in buffers dropped afterwards.
 *
 * <p>Byte input is UTF-8, as RFC 8259 requires; like the Jackson parser it replaced, a
 * leading UTF-8 byte order mark is skipped and a document in UTF-16 or UTF-32 (told by its
 * byte order mark or its zero bytes) is decoded first.
 */
public final class JsonCanonicalizer {
    /** The most a thread keeps of its work buffers between calls. */
    static final long MAX_RETAINED_BYTES = 1 << 20;

    static final byte[] NO_BYTES = new byte[0];

    private static final ThreadLocal<Workspace> WORKSPACES = ThreadLocal.withInitial(Workspace::new);

    private JsonCanonicalizer() {
    }

    /**
     * Canonicalizes UTF-8 JSON.
     *
     * @param json the UTF-8 JSON text
     * @param excluded members and elements to leave out
     * @return the canonical UTF-8 bytes
     */
    public static byte[] canonicalize(byte[] json, PointerSet excluded) {
        Workspace w = acquire();
        try {
            return w.run(json, excluded).toByteArray();
        } finally {
            release(w);
        }
    }

    /**
     * Canonicalizes JSON text.
     *
     * @param json the JSON text
     * @param excluded members and elements to leave out
     * @return the canonical UTF-8 bytes
     */
    public static byte[] canonicalize(String json, PointerSet excluded) {
        Workspace w = acquire();
        try {
            return w.run(json, excluded).toByteArray();
        } finally {
            release(w);
        }
    }

    /**
     * Canonicalizes JSON text into a {@code String}, made straight from the work buffer (no
     * intermediate byte array).
     *
     * @param json the JSON text
     * @param excluded members and elements to leave out
     * @return the canonical text
     */
    public static String canonicalText(String json, PointerSet excluded) {
        Workspace w = acquire();
        try {
            ByteSink out = w.run(json, excluded);
            return Utf8.text(out.buf, out.size, w.text);
        } finally {
            release(w);
        }
    }

    /** Canonicalizes UTF-8 JSON straight into {@code digest}, without copying the result out. */
    public static void digest(byte[] json, PointerSet excluded, MessageDigest digest) {
        Workspace w = acquire();
        try {
            ByteSink out = w.run(json, excluded);
            digest.update(out.buf, 0, out.size);
        } finally {
            release(w);
        }
    }

    /** Canonicalizes JSON text straight into {@code digest}. */
    public static void digest(String json, PointerSet excluded, MessageDigest digest) {
        Workspace w = acquire();
        try {
            ByteSink out = w.run(json, excluded);
            digest.update(out.buf, 0, out.size);
        } finally {
            release(w);
        }
    }

    // A call made while the thread's workspace is busy (a serializer that fingerprints
    // while its request is being written, say) gets a fresh one.
    private static Workspace acquire() {
        Workspace w = WORKSPACES.get();
        if (w.busy) {
            return new Workspace();
        }
        w.busy = true;
        return w;
    }

    private static void release(Workspace w) {
        w.busy = false;
        if (w.retainedBytes() > MAX_RETAINED_BYTES && WORKSPACES.get() == w) {
            WORKSPACES.set(new Workspace());
        }
    }

    /** A thread's buffers: the chars and the UTF-8 of a text request, and the tape. */
    private static final class Workspace {
        private char[] chars = new char[256];
        private final ByteSink text = new ByteSink(256);
        private final CanonicalTape tape = new CanonicalTape();
        private boolean busy;

        ByteSink run(String json, PointerSet excluded) {
            int n = json.length();
            if (chars.length < n) {
                chars = new char[Math.max(n, chars.length * 2)];
            }
            // One bulk copy (an intrinsic), then a loop over an array: cheaper than charAt.
            json.getChars(0, n, chars, 0);
            Utf8.encode(chars, n, text);
            return tape.run(text.buf, 0, text.size, excluded);
        }

        ByteSink run(byte[] json, PointerSet excluded) {
            int from = 0;
            if (json.length >= 2 && (json[0] == 0 || json[1] == 0 || (json[0] & 0xFE) == 0xFE)) {
                Charset charset = wideCharset(json);
                if (charset != null) {
                    return run(decode(json, charset), excluded);
                }
            } else if (json.length >= 3 && (json[0] & 0xFF) == 0xEF && (json[1] & 0xFF) == 0xBB
                    && (json[2] & 0xFF) == 0xBF) {
                from = 3;
            }
            return tape.run(json, from, json.length, excluded);
        }

        long retainedBytes() {
            return 2L * chars.length + text.buf.length + tape.retainedBytes();
        }
    }

    // JSON text starts with an ASCII character, so its first bytes tell UTF-16 and UTF-32
    // apart from UTF-8 (RFC 4627 section 3), as do their byte order marks.
    private static Charset wideCharset(byte[] b) {
        int b0 = b[0] & 0xFF;
        int b1 = b[1] & 0xFF;
        boolean four = b.length >= 4;
        int b2 = four ? b[2] & 0xFF : -1;
        int b3 = four ? b[3] & 0xFF : -1;
        if (four && b0 == 0 && b1 == 0 && (b2 == 0xFE && b3 == 0xFF || b2 == 0 && b3 != 0)) {
            return Charset.forName("UTF-32BE");
        }
        if (four && b0 == 0xFF && b1 == 0xFE && b2 == 0 && b3 == 0 || four && b0 != 0 && b1 == 0 && b2 == 0 && b3 == 0) {
            return Charset.forName("UTF-32LE");
        }
        if (b0 == 0xFE && b1 == 0xFF || b0 == 0 && b1 != 0) {
            return java.nio.charset.StandardCharsets.UTF_16BE;
        }
        if (b0 == 0xFF && b1 == 0xFE || b0 != 0 && b1 == 0) {
            return java.nio.charset.StandardCharsets.UTF_16LE;
        }
        return null;
    }

    private static String decode(byte[] json, Charset charset) {
        try {
            String text = charset.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(json)).toString();
            return !text.isEmpty() && text.charAt(0) == '\uFEFF' ? text.substring(1) : text;
        } catch (CharacterCodingException e) {
            throw new InvalidRequestException("malformed request JSON: invalid " + charset.name() + " text", false, e);
        }
    }
}
