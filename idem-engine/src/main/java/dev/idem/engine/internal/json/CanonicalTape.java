package dev.idem.engine.internal.json;

import dev.idem.api.InvalidRequestException;

/**
 * One pass over strict UTF-8 JSON that writes every token in its canonical form, in input
 * order, into {@link #tokens}; the members of each object (and the elements of an array
 * that has exclusions) are recorded in a {@link ContainerTable} table as byte ranges of that buffer.
 * Nothing is allocated per token: no tree, no String per name or number. A document whose
 * objects are all already in canonical order, with nothing excluded, is finished there;
 * otherwise {@link ContainerTable#emit} copies it once more with each such object's members in
 * order. Both passes are linear in the size of the input whatever its depth, and neither
 * recurses.
 *
 * <p>A tape is reusable (one per thread, see {@link JsonCanonicalizer}) and not
 * thread-safe. Its limits are those of the Jackson parser it replaced: nesting deeper than
 * {@value #MAX_DEPTH}, a number of more than {@value #MAX_NUMBER_DIGITS} digits, a member
 * name of more than {@value #MAX_NAME_BYTES} bytes or a string of more than
 * {@value #MAX_STRING_BYTES} bytes is refused as too large (HTTP 413).
 */
final class CanonicalTape {
    static final int MAX_DEPTH = 1000;
    static final int MAX_NUMBER_DIGITS = 1000;
    static final int MAX_NAME_BYTES = 50_000;
    static final int MAX_STRING_BYTES = 20_000_000;

    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};
    private static final byte[] HEX_VALUE = new byte[128];

    static {
        java.util.Arrays.fill(HEX_VALUE, (byte) -1);
        for (int i = 0; i < 10; i++) {
            HEX_VALUE['0' + i] = (byte) i;
        }
        for (int i = 0; i < 6; i++) {
            HEX_VALUE['a' + i] = (byte) (10 + i);
            HEX_VALUE['A' + i] = (byte) (10 + i);
        }
    }

    final ByteSink tokens = new ByteSink(256);
    final ContainerTable table = new ContainerTable();
    private byte[] src = new byte[0];
    private int pos;
    private int end;

    /**
     * Canonicalizes {@code json[from, to)}; returns the buffer holding the result from offset
     * 0 to its size, which stays valid until the next call.
     */
    ByteSink run(byte[] json, int from, int to, PointerSet excluded) {
        src = json;
        pos = from;
        end = to;
        tokens.size = 0;
        tokens.ensure(to - from + 16);
        table.reset(tokens);
        try {
            parse(excluded.isEmpty() ? null : excluded);
            return table.rewrites() ? table.emit() : tokens;
        } finally {
            src = JsonCanonicalizer.NO_BYTES;
            table.release();
        }
    }

    /** The bytes this tape keeps between calls. */
    long retainedBytes() {
        return tokens.buf.length + table.retainedBytes();
    }

    private void parse(PointerSet excluded) {
        skipWhitespace();
        if (pos >= end) {
            throw new InvalidRequestException("request JSON is empty");
        }
        ContainerTable k = table;
        PointerSet pointers = excluded;
        while (true) {
            // At the start of a value; pointers: what is excluded below it (null: nothing).
            if (pos >= end) {
                throw malformed("unexpected end of input");
            }
            byte c = src[pos];
            if (c == '{' || c == '[') {
                if (k.depth() == MAX_DEPTH) {
                    throw tooLarge("nesting depth exceeds the maximum allowed (" + MAX_DEPTH + ")");
                }
                boolean object = c == '{';
                k.open(object, pointers);
                pos++;
                skipWhitespace();
                if (pos < end && src[pos] == (object ? '}' : ']')) {
                    pos++;
                    k.close();
                } else {
                    pointers = object ? member() : k.element();
                    continue;
                }
            } else {
                scalar(c);
            }
            // After a value: close what ends here, or move to the next member or element.
            while (true) {
                if (k.depth() == 0) {
                    skipWhitespace();
                    if (pos < end) {
                        throw malformed("content after the first value");
                    }
                    return;
                }
                k.finishKid();
                skipWhitespace();
                if (pos >= end) {
                    throw malformed("unexpected end of input");
                }
                c = src[pos++];
                boolean object = k.inObject();
                if (c == ',') {
                    tokens.write(',');
                    skipWhitespace();
                    pointers = object ? member() : k.element();
                    break;
                }
                if (c != (object ? '}' : ']')) {
                    pos--;
                    throw malformed("expected ',' or '" + (object ? '}' : ']') + "'");
                }
                k.close();
            }
        }
    }

    // A member name and its colon; returns what is excluded below the member's value.
    private PointerSet member() {
        if (pos >= end || src[pos] != '"') {
            throw malformed("expected a member name");
        }
        int start = tokens.size;
        boolean plain = string(MAX_NAME_BYTES);
        PointerSet below = table.member(start, plain);
        skipWhitespace();
        if (pos >= end || src[pos] != ':') {
            throw malformed("expected ':'");
        }
        pos++;
        tokens.write(':');
        skipWhitespace();
        return below;
    }

    private void scalar(byte c) {
        switch (c) {
            case '"':
                string(MAX_STRING_BYTES);
                break;
            case 't':
                literal(TRUE);
                break;
            case 'f':
                literal(FALSE);
                break;
            case 'n':
                literal(NULL);
                break;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    number();
                } else {
                    throw malformed("unexpected character " + describe(c));
                }
        }
    }

    private void literal(byte[] word) {
        int n = word.length;
        if (end - pos < n) {
            throw malformed("unrecognized token");
        }
        for (int i = 0; i < n; i++) {
            if (src[pos + i] != word[i]) {
                throw malformed("unrecognized token");
            }
        }
        pos += n;
        tokens.write(word, 0, n);
    }

    // The integer grammar is checked here (no leading zeros, no '+', digits after '.' and
    // 'e'), so an integer of up to 21 digits is its own canonical form, except minus zero.
    private void number() {
        byte[] s = src;
        int start = pos;
        int p = start;
        if (s[p] == '-') {
            p++;
        }
        int intStart = p;
        if (p < end && s[p] == '0') {
            p++;
            if (p < end && isDigit(s[p])) {
                throw malformed("leading zeros in a number");
            }
        } else {
            while (p < end && isDigit(s[p])) {
                p++;
            }
        }
        int intLen = p - intStart;
        if (intLen == 0) {
            throw malformed("invalid number");
        }
        int otherDigits = 0;
        boolean integer = true;
        int fractionStart = -1;
        if (p < end && s[p] == '.') {
            int at = ++p;
            while (p < end && isDigit(s[p])) {
                p++;
            }
            if (p == at) {
                throw malformed("a decimal point needs a digit after it");
            }
            otherDigits += p - at;
            integer = false;
            fractionStart = at;
        }
        boolean exponent = false;
        if (p < end && (s[p] == 'e' || s[p] == 'E')) {
            exponent = true;
            p++;
            if (p < end && (s[p] == '+' || s[p] == '-')) {
                p++;
            }
            int at = p;
            while (p < end && isDigit(s[p])) {
                p++;
            }
            if (p == at) {
                throw malformed("an exponent needs a digit");
            }
            otherDigits += p - at;
            integer = false;
        }
        if (intLen + otherDigits > MAX_NUMBER_DIGITS) {
            throw tooLarge("number of " + (intLen + otherDigits) + " digits; the maximum is " + MAX_NUMBER_DIGITS);
        }
        pos = p;
        if (integer && intLen <= 21) {
            if (intLen == 1 && s[intStart] == '0') {
                tokens.write('0');
            } else {
                tokens.write(s, start, p - start);
            }
        } else if (!exponent && intLen <= 21 && s[p - 1] != '0' && plainFraction(s, intStart, intLen, fractionStart)) {
            // A plain decimal such as 42.5 or 0.05, without trailing zeros, is its own
            // canonical form (Es6Numbers would print the same digits in the same layout).
            tokens.write(s, start, p - start);
        } else {
            Es6Numbers.write(s, start, p, tokens);
        }
    }

    // Whether a decimal with this integer part keeps its point where the literal has it: a
    // non-zero integer part, or fewer than six zeros after "0." (from 1e-7 on, the layout
    // has an exponent).
    private static boolean plainFraction(byte[] s, int intStart, int intLen, int fractionStart) {
        if (intLen > 1 || s[intStart] != '0') {
            return true;
        }
        int zeros = 0;
        while (s[fractionStart + zeros] == '0') {
            zeros++;
        }
        return zeros < 6;
    }

    /**
     * Writes the string at {@link #pos} in canonical form. Returns whether its canonical bytes
     * order like its UTF-16 code units (no escape, no character beyond U+FFFF), so names can
     * be compared as bytes.
     */
    private boolean string(int maxBytes) {
        byte[] s = src;
        int limit = end;
        int contentStart = pos + 1;
        int p = contentStart;
        ByteSink t = tokens;
        t.ensure(limit - p + 2);
        byte[] b = t.buf;
        int start = t.size;
        int o = start;
        b[o++] = '"';
        boolean plain = true;
        while (true) {
            // Eight bytes at a time while none of them ends the string or needs a second look.
            while (p + 8 <= limit) {
                long w = (long) LONGS.get(s, p);
                if (!plainAscii(w)) {
                    break;
                }
                LONGS.set(b, o, w);
                p += 8;
                o += 8;
            }
            if (p >= limit) {
                pos = p;
                throw malformed("unterminated string");
            }
            byte c = s[p];
            if (c >= 0x20 && c != '"' && c != '\\') {
                b[o++] = c;
                p++;
            } else if (c == '"') {
                p++;
                break;
            } else if (c == '\\') {
                p = escape(p, contentStart, o);
                // An escape kept as one, or a character beyond U+FFFF, does not order like UTF-16.
                plain &= b[o] != '\\' && escapedEnd - o < 4;
                o = escapedEnd;
            } else if (c < 0) {
                int n = Utf8.sequenceLength(s, p, limit);
                if (n <= 0) {
                    pos = p;
                    if (n == Utf8.SURROGATE) {
                        throw loneSurrogate(contentStart, p);
                    }
                    throw malformed("invalid UTF-8 in a string");
                }
                plain &= n < 4;
                for (int i = 0; i < n; i++) {
                    b[o++] = s[p++];
                }
            } else {
                pos = p;
                throw malformed("unescaped control character " + describe(c) + " in a string");
            }
        }
        b[o++] = '"';
        if (o - start - 2 > maxBytes) {
            throw tooLarge((maxBytes == MAX_NAME_BYTES ? "member name" : "string") + " of " + (o - start - 2)
                    + " bytes; the maximum is " + maxBytes);
        }
        t.size = o;
        pos = p;
        return plain;
    }

    private int escapedEnd;

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    /**
     * Whether the eight bytes of {@code w} are all ASCII text a string keeps as it is: no byte
     * of 0x80 or more, below 0x20, a quote or a backslash (each test sets the high bit of a
     * byte that matches; valid on ASCII bytes, which the first test makes sure of).
     */
    private static boolean plainAscii(long w) {
        long control = w - 0x20 * ONES;
        long quote = (w ^ '"' * ONES) - ONES;
        long backslash = (w ^ '\\' * ONES) - ONES;
        return ((w | control | quote | backslash) & HIGHS) == 0;
    }

    // The escape at s[p] ('\\'), written canonically at tokens.buf[o]; returns the input
    // position after it and leaves the output position in escapedEnd. contentStart: where
    // the string's text begins, for the index in a lone-surrogate message.
    private int escape(int p, int contentStart, int o) {
        byte[] b = tokens.buf;
        if (p + 1 >= end) {
            pos = p;
            throw malformed("unterminated string");
        }
        byte e = src[p + 1];
        int c;
        switch (e) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '/': c = '/'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u':
                c = hex4(p + 2);
                if (Character.isSurrogate((char) c)) {
                    int low = Character.isHighSurrogate((char) c) && p + 12 <= end && src[p + 6] == '\\'
                            && src[p + 7] == 'u' ? hex4(p + 8) : -1;
                    if (low < 0 || !Character.isLowSurrogate((char) low)) {
                        pos = p;
                        throw loneSurrogate(contentStart, p);
                    }
                    escapedEnd = Utf8.writeCodePoint(b, o, Character.toCodePoint((char) c, (char) low));
                    return p + 12;
                }
                escapedEnd = c < 0x20 || c == '"' || c == '\\' ? ByteSink.writeEscape(b, o, c) : Utf8.writeChar(b, o, c);
                return p + 6;
            default:
                pos = p;
                throw malformed("invalid escape in a string");
        }
        escapedEnd = c < 0x20 || c == '"' || c == '\\' ? ByteSink.writeEscape(b, o, c) : Utf8.writeChar(b, o, c);
        return p + 2;
    }

    private int hex4(int at) {
        if (at + 4 > end) {
            pos = at;
            throw malformed("unterminated string");
        }
        int v = 0;
        for (int i = at; i < at + 4; i++) {
            byte c = src[i];
            int h = c >= 0 ? HEX_VALUE[c] : -1;
            if (h < 0) {
                pos = i;
                throw malformed("invalid \\u escape in a string");
            }
            v = v << 4 | h;
        }
        return v;
    }

    private void skipWhitespace() {
        byte[] s = src;
        int p = pos;
        while (p < end) {
            byte c = s[p];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                break;
            }
            p++;
        }
        pos = p;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private InvalidRequestException loneSurrogate(int contentStart, int at) {
        return new InvalidRequestException("request JSON has a lone surrogate at index "
                + Utf8.utf16Index(src, contentStart, at) + " of a string");
    }

    private InvalidRequestException malformed(String detail) {
        return new InvalidRequestException("malformed request JSON: " + detail + " at byte " + pos);
    }

    private static InvalidRequestException tooLarge(String detail) {
        return new InvalidRequestException("request JSON exceeds a parser limit: " + detail, true, null);
    }

    private static String describe(byte c) {
        int u = c & 0xFF;
        return u >= 0x20 && u < 0x7F ? "'" + (char) u + "'" : String.format("0x%02x", u);
    }
}
