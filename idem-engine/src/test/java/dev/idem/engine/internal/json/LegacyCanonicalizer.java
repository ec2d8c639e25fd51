package dev.idem.engine.internal.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import dev.idem.api.InvalidRequestException;
import java.io.IOException;
import java.util.Arrays;

/**
 * The canonicalizer as it was before the streaming rewrite (Jackson parser, tree of index
 * arrays, String member names), kept verbatim as the oracle the new one is compared with.
 *
 * <p>Streams strict JSON into its canonical form: RFC 8785 layout, with numbers by exact
 * decimal value (see {@link Es6Numbers}). Strict means: one value and nothing after it, no
 * duplicate member names, no lone surrogates (escaped or not), no NaN or Infinity, no
 * comments or other extensions. Members matched by a {@link PointerSet} are left out.
 *
 * <p>The work is linear in the size of the input whatever its depth: one streaming pass
 * writes every scalar and member name once, in input order, into a scratch buffer and
 * records the tree as index arrays (each object's members sorted when it closes); a
 * second pass walks the tree in canonical order and copies each scalar once. Neither
 * pass recurses, so depth costs neither time nor stack.
 */
final class LegacyCanonicalizer {
    private static final JsonFactory STRICT = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private LegacyCanonicalizer() {
    }

    /**
     * Canonicalizes UTF-8 JSON.
     *
     * @param json the UTF-8 JSON text
     * @param excluded members and elements to leave out
     * @return the canonical UTF-8 bytes
     */
    static byte[] canonicalize(byte[] json, PointerSet excluded) {
        return canonicalizeInto(json, excluded).toByteArray();
    }

    /**
     * Canonicalizes JSON text.
     *
     * @param json the JSON text
     * @param excluded members and elements to leave out
     * @return the canonical UTF-8 bytes
     */
    static byte[] canonicalize(String json, PointerSet excluded) {
        return canonicalizeInto(json, excluded).toByteArray();
    }

    private static ByteSink canonicalizeInto(byte[] json, PointerSet excluded) {
        try (JsonParser p = STRICT.createParser(json)) {
            return new Tape(json.length, excluded).read(p);
        } catch (IOException e) {
            throw invalid(e);
        }
    }

    private static ByteSink canonicalizeInto(String json, PointerSet excluded) {
        try (JsonParser p = STRICT.createParser(json)) {
            return new Tape(json.length(), excluded).read(p);
        } catch (IOException e) {
            throw invalid(e);
        }
    }

    private static InvalidRequestException invalid(IOException e) {
        String msg = e instanceof JsonProcessingException
                ? ((JsonProcessingException) e).getOriginalMessage()
                : e.getMessage();
        if (e instanceof StreamConstraintsException) {
            return new InvalidRequestException("request JSON exceeds a parser limit: " + msg, true, e);
        }
        return new InvalidRequestException("malformed request JSON: " + msg, false, e);
    }

    /**
     * The document as flat arrays. A node is a scalar (a byte range of {@link #bytes}) or a
     * container (a range of {@link #kids}). An array's kids are node ids; an object's are
     * triples (name start, name end, value node) in canonical member order.
     */
    private static final class Tape {
        private static final byte SCALAR = 0;
        private static final byte ARRAY = 1;
        private static final byte OBJECT = 2;

        private final ByteSink bytes;
        private final PointerSet excluded;

        private byte[] kind = new byte[16];
        private int[] first = new int[16];
        private int[] second = new int[16];
        private int nodes;

        private int[] kids = new int[16];
        private int kidCount;

        // Finished children of the open containers, innermost last.
        private int[] pendingNode = new int[16];
        private int[] pendingNameStart = new int[16];
        private int[] pendingNameEnd = new int[16];
        private String[] pendingName = new String[16];
        private int pending;

        // Open containers, innermost last.
        private byte[] frameKind = new byte[8];
        private int[] framePendingBase = new int[8];
        private int[] frameIndex = new int[8];
        private PointerSet[] framePointers = new PointerSet[8];
        private String[] frameName = new String[8];
        private int[] frameNameStart = new int[8];
        private int[] frameNameEnd = new int[8];
        private int frames;

        Tape(int inputSize, PointerSet excluded) {
            this.bytes = new ByteSink(inputSize);
            this.excluded = excluded.isEmpty() ? null : excluded;
        }

        ByteSink read(JsonParser p) throws IOException {
            JsonToken t = p.nextToken();
            if (t == null) {
                throw new InvalidRequestException("request JSON is empty");
            }
            int root = -1;
            String name = null;
            int nameStart = 0;
            int nameEnd = 0;
            PointerSet pointers = excluded;
            while (true) {
                if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                    int node = close();
                    if (frames == 0) {
                        root = node;
                        break;
                    }
                    t = p.nextToken();
                    continue;
                }
                if (frames > 0) {
                    int f = frames - 1;
                    PointerSet parent = framePointers[f];
                    if (frameKind[f] == OBJECT) {
                        if (t != JsonToken.FIELD_NAME) {
                            throw new InvalidRequestException("malformed request JSON: unexpected " + t);
                        }
                        name = p.currentName();
                        pointers = parent == null ? null : parent.child(name);
                        t = p.nextToken();
                        if (pointers != null && pointers.isTerminal()) {
                            p.skipChildren();
                            t = p.nextToken();
                            continue;
                        }
                        nameStart = bytes.size();
                        writeString(name.toCharArray(), 0, name.length());
                        nameEnd = bytes.size();
                    } else {
                        name = null;
                        int index = frameIndex[f]++;
                        pointers = parent == null ? null : parent.child(Integer.toString(index));
                        if (pointers != null && pointers.isTerminal()) {
                            p.skipChildren();
                            t = p.nextToken();
                            continue;
                        }
                    }
                }
                if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                    open(t == JsonToken.START_OBJECT ? OBJECT : ARRAY, pointers, name, nameStart, nameEnd);
                    t = p.nextToken();
                    continue;
                }
                int node = scalar(p, t);
                if (frames == 0) {
                    root = node;
                    break;
                }
                push(node, name, nameStart, nameEnd);
                t = p.nextToken();
            }
            if (p.nextToken() != null) {
                throw new InvalidRequestException("malformed request JSON: content after the first value");
            }
            return emit(root);
        }

        private int scalar(JsonParser p, JsonToken t) throws IOException {
            int start = bytes.size();
            switch (t) {
                case VALUE_STRING:
                    writeString(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                    break;
                case VALUE_NUMBER_INT:
                    writeInteger(p);
                    break;
                case VALUE_NUMBER_FLOAT:
                    LegacyNumbers.write(p.getText(), bytes);
                    break;
                case VALUE_TRUE:
                    bytes.writeAscii("true");
                    break;
                case VALUE_FALSE:
                    bytes.writeAscii("false");
                    break;
                case VALUE_NULL:
                    bytes.writeAscii("null");
                    break;
                default:
                    throw new InvalidRequestException("malformed request JSON: unexpected " + t);
            }
            return node(SCALAR, start, bytes.size());
        }

        // Jackson has already checked the integer grammar (no leading zeros, no '+'), so an
        // integer of up to 21 digits is its own canonical form, except for minus zero.
        private void writeInteger(JsonParser p) throws IOException {
            char[] chars = p.getTextCharacters();
            int off = p.getTextOffset();
            int len = p.getTextLength();
            if (len == 2 && chars[off] == '-' && chars[off + 1] == '0') {
                bytes.write('0');
                return;
            }
            if (len - (chars[off] == '-' ? 1 : 0) > 21) {
                LegacyNumbers.write(new String(chars, off, len), bytes);
                return;
            }
            for (int i = 0; i < len; i++) {
                bytes.write(chars[off + i]);
            }
        }

        private void writeString(char[] chars, int off, int len) {
            bytes.write('"');
            int lone = bytes.writeJsonStringBody(chars, off, len);
            if (lone >= 0) {
                throw new InvalidRequestException(
                        "request JSON has a lone surrogate at index " + lone + " of a string");
            }
            bytes.write('"');
        }

        private int node(byte k, int a, int b) {
            if (nodes == kind.length) {
                kind = Arrays.copyOf(kind, nodes * 2);
                first = Arrays.copyOf(first, nodes * 2);
                second = Arrays.copyOf(second, nodes * 2);
            }
            kind[nodes] = k;
            first[nodes] = a;
            second[nodes] = b;
            return nodes++;
        }

        private void push(int node, String name, int nameStart, int nameEnd) {
            if (pending == pendingNode.length) {
                int n = pending * 2;
                pendingNode = Arrays.copyOf(pendingNode, n);
                pendingNameStart = Arrays.copyOf(pendingNameStart, n);
                pendingNameEnd = Arrays.copyOf(pendingNameEnd, n);
                pendingName = Arrays.copyOf(pendingName, n);
            }
            pendingNode[pending] = node;
            pendingName[pending] = name;
            pendingNameStart[pending] = nameStart;
            pendingNameEnd[pending] = nameEnd;
            pending++;
        }

        private void open(byte k, PointerSet pointers, String name, int nameStart, int nameEnd) {
            if (frames == frameKind.length) {
                int n = frames * 2;
                frameKind = Arrays.copyOf(frameKind, n);
                framePendingBase = Arrays.copyOf(framePendingBase, n);
                frameIndex = Arrays.copyOf(frameIndex, n);
                framePointers = Arrays.copyOf(framePointers, n);
                frameName = Arrays.copyOf(frameName, n);
                frameNameStart = Arrays.copyOf(frameNameStart, n);
                frameNameEnd = Arrays.copyOf(frameNameEnd, n);
            }
            frameKind[frames] = k;
            framePendingBase[frames] = pending;
            frameIndex[frames] = 0;
            framePointers[frames] = pointers;
            frameName[frames] = name;
            frameNameStart[frames] = nameStart;
            frameNameEnd[frames] = nameEnd;
            frames++;
        }

        // Moves the finished children of the innermost container into kids (sorted, for an
        // object) and hands the container to its parent as a finished child.
        private int close() {
            int f = --frames;
            int base = framePendingBase[f];
            int count = pending - base;
            int start = kidCount;
            if (frameKind[f] == ARRAY) {
                ensureKids(count);
                System.arraycopy(pendingNode, base, kids, kidCount, count);
                kidCount += count;
            } else {
                ensureKids(3 * count);
                int[] order = sortedOrder(pendingName, base, count);
                for (int i = 0; i < count; i++) {
                    int m = base + order[i];
                    kids[kidCount++] = pendingNameStart[m];
                    kids[kidCount++] = pendingNameEnd[m];
                    kids[kidCount++] = pendingNode[m];
                }
            }
            Arrays.fill(pendingName, base, pending, null);
            pending = base;
            int node = node(frameKind[f], start, count);
            if (frames > 0) {
                push(node, frameName[f], frameNameStart[f], frameNameEnd[f]);
            }
            framePointers[f] = null;
            frameName[f] = null;
            return node;
        }

        private void ensureKids(int extra) {
            if (kidCount + extra > kids.length) {
                kids = Arrays.copyOf(kids, Math.max(kids.length * 2, kidCount + extra));
            }
        }

        // Walks the tree in canonical order with an explicit stack: pos is the next child to
        // write, -1 before the opening bracket.
        private ByteSink emit(int root) {
            ByteSink out = new ByteSink(bytes.size() + 2 * nodes);
            byte[] src = bytes.array();
            int[] stackNode = new int[16];
            int[] stackPos = new int[16];
            int sp = 0;
            stackNode[0] = root;
            stackPos[0] = -1;
            sp = 1;
            while (sp > 0) {
                int top = sp - 1;
                int node = stackNode[top];
                byte k = kind[node];
                if (k == SCALAR) {
                    out.write(src, first[node], second[node] - first[node]);
                    sp--;
                    continue;
                }
                int pos = stackPos[top];
                if (pos < 0) {
                    out.write(k == OBJECT ? '{' : '[');
                    pos = 0;
                }
                if (pos == second[node]) {
                    out.write(k == OBJECT ? '}' : ']');
                    sp--;
                    continue;
                }
                if (pos > 0) {
                    out.write(',');
                }
                int child;
                if (k == OBJECT) {
                    int at = first[node] + 3 * pos;
                    out.write(src, kids[at], kids[at + 1] - kids[at]);
                    out.write(':');
                    child = kids[at + 2];
                } else {
                    child = kids[first[node] + pos];
                }
                stackPos[top] = pos + 1;
                if (kind[child] == SCALAR) {
                    out.write(src, first[child], second[child] - first[child]);
                    continue;
                }
                if (sp == stackNode.length) {
                    stackNode = Arrays.copyOf(stackNode, sp * 2);
                    stackPos = Arrays.copyOf(stackPos, sp * 2);
                }
                stackNode[sp] = child;
                stackPos[sp] = -1;
                sp++;
            }
            return out;
        }
    }

    // RFC 8785 section 3.2.3: UTF-16 code unit order, which is String.compareTo.
    private static int[] sortedOrder(String[] names, int base, int count) {
        int[] order = new int[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        if (count <= 16) {
            for (int i = 1; i < count; i++) {
                int m = order[i];
                int j = i - 1;
                while (j >= 0 && names[base + order[j]].compareTo(names[base + m]) > 0) {
                    order[j + 1] = order[j];
                    j--;
                }
                order[j + 1] = m;
            }
            return order;
        }
        Integer[] boxed = new Integer[count];
        for (int i = 0; i < count; i++) {
            boxed[i] = i;
        }
        Arrays.sort(boxed, (a, b) -> names[base + a].compareTo(names[base + b]));
        for (int i = 0; i < count; i++) {
            order[i] = boxed[i];
        }
        return order;
    }

    /** The number canonicalization of that version (exact decimals). */
    private static final class LegacyNumbers {
        /** Appends the canonical form of the JSON number {@code text} to {@code out}. */
        static void write(String text, ByteSink out) {
            int len = text.length();
            int i = 0;
            boolean negative = false;
            if (i < len && text.charAt(i) == '-') {
                negative = true;
                i++;
            }
            StringBuilder digits = new StringBuilder(len);
            int intDigits = 0;
            while (i < len && isDigit(text.charAt(i))) {
                digits.append(text.charAt(i++));
                intDigits++;
            }
            if (i < len && text.charAt(i) == '.') {
                i++;
                while (i < len && isDigit(text.charAt(i))) {
                    digits.append(text.charAt(i++));
                }
            }
            long exponent = 0;
            if (i < len && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
                i++;
                boolean expNegative = false;
                if (i < len && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
                    expNegative = text.charAt(i) == '-';
                    i++;
                }
                int expStart = i;
                while (i < len && isDigit(text.charAt(i))) {
                    if (i - expStart >= 9) {
                        throw new InvalidRequestException("request JSON number exponent out of range: " + abbreviate(text));
                    }
                    exponent = exponent * 10 + (text.charAt(i++) - '0');
                }
                if (expNegative) {
                    exponent = -exponent;
                }
            }
            if (i != len || digits.length() == 0) {
                throw new InvalidRequestException("request JSON has an invalid number: " + abbreviate(text));
            }
            int lead = 0;
            while (lead < digits.length() && digits.charAt(lead) == '0') {
                lead++;
            }
            if (lead == digits.length()) {
                out.write('0');
                return;
            }
            int trail = digits.length();
            while (digits.charAt(trail - 1) == '0') {
                trail--;
            }
            if (negative) {
                out.write('-');
            }
            // value = 0.significant x 10^point, exactly
            layout(digits.substring(lead, trail), intDigits - lead + exponent, out);
        }

        // ECMAScript Number::toString layout for digits s (no leading/trailing zeros), value 0.s x 10^n.
        private static void layout(String s, long n, ByteSink out) {
            int k = s.length();
            if (k <= n && n <= 21) {
                out.writeAscii(s);
                for (long z = n - k; z > 0; z--) {
                    out.write('0');
                }
            } else if (0 < n && n <= 21) {
                out.writeAscii(s.substring(0, (int) n));
                out.write('.');
                out.writeAscii(s.substring((int) n));
            } else if (-6 < n && n <= 0) {
                out.writeAscii("0.");
                for (long z = -n; z > 0; z--) {
                    out.write('0');
                }
                out.writeAscii(s);
            } else {
                out.write(s.charAt(0));
                if (k > 1) {
                    out.write('.');
                    out.writeAscii(s.substring(1));
                }
                out.write('e');
                long e = n - 1;
                out.write(e < 0 ? '-' : '+');
                out.writeAscii(Long.toString(Math.abs(e)));
            }
        }

        private static boolean isDigit(char c) {
            return c >= '0' && c <= '9';
        }

        private static String abbreviate(String s) {
            return s.length() <= 40 ? s : s.substring(0, 37) + "...";
        }
    }
}
