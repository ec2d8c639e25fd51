package dev.idem.engine.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.idem.api.InvalidRequestException;
import java.io.IOException;

/**
 * Streams strict JSON into its RFC 8785 canonical form (see {@link Es6Numbers} for the
 * number rule). Strict means: one value and nothing after it, no duplicate member names,
 * no lone surrogates (escaped or not), no NaN or Infinity, no comments or other
 * extensions. Members matched by a {@link PointerSet} are left out.
 */
public final class JsonCanonicalizer {
    private static final JsonFactory STRICT = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private JsonCanonicalizer() {
    }

    /** Canonicalizes UTF-8 JSON. */
    public static byte[] canonicalize(byte[] json, PointerSet excluded) {
        return canonicalizeInto(json, excluded).toByteArray();
    }

    /** Canonicalizes JSON text. */
    public static byte[] canonicalize(String json, PointerSet excluded) {
        return canonicalizeInto(json, excluded).toByteArray();
    }

    /** Canonicalizes UTF-8 JSON straight into {@code digest}, without copying the result out. */
    static void digest(byte[] json, PointerSet excluded, java.security.MessageDigest digest) {
        ByteSink out = canonicalizeInto(json, excluded);
        digest.update(out.array(), 0, out.size());
    }

    /** Canonicalizes JSON text straight into {@code digest}. */
    static void digest(String json, PointerSet excluded, java.security.MessageDigest digest) {
        ByteSink out = canonicalizeInto(json, excluded);
        digest.update(out.array(), 0, out.size());
    }

    private static ByteSink canonicalizeInto(byte[] json, PointerSet excluded) {
        ByteSink out = new ByteSink(json.length);
        try (JsonParser p = STRICT.createParser(json)) {
            write(p, excluded, out);
        } catch (IOException e) {
            throw invalid(e);
        }
        return out;
    }

    private static ByteSink canonicalizeInto(String json, PointerSet excluded) {
        ByteSink out = new ByteSink(json.length());
        try (JsonParser p = STRICT.createParser(json)) {
            write(p, excluded, out);
        } catch (IOException e) {
            throw invalid(e);
        }
        return out;
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

    private static void write(JsonParser p, PointerSet excluded, ByteSink out) throws IOException {
        JsonToken t = p.nextToken();
        if (t == null) {
            throw new InvalidRequestException("request JSON is empty");
        }
        writeValue(p, t, excluded.isEmpty() ? null : excluded, out);
        JsonToken after = p.nextToken();
        if (after != null) {
            throw new InvalidRequestException("malformed request JSON: content after the first value");
        }
    }

    private static void writeValue(JsonParser p, JsonToken t, PointerSet pointers, ByteSink out) throws IOException {
        switch (t) {
            case START_OBJECT:
                writeObject(p, pointers, out);
                break;
            case START_ARRAY:
                writeArray(p, pointers, out);
                break;
            case VALUE_STRING:
                writeString(p.getTextCharacters(), p.getTextOffset(), p.getTextLength(), out);
                break;
            case VALUE_NUMBER_INT:
                writeInteger(p, out);
                break;
            case VALUE_NUMBER_FLOAT:
                Es6Numbers.write(p.getText(), out);
                break;
            case VALUE_TRUE:
                out.writeAscii("true");
                break;
            case VALUE_FALSE:
                out.writeAscii("false");
                break;
            case VALUE_NULL:
                out.writeAscii("null");
                break;
            default:
                throw new InvalidRequestException("malformed request JSON: unexpected " + t);
        }
    }

    // Jackson has already checked the integer grammar (no leading zeros, no '+'), so an
    // integer of up to 21 digits is its own canonical form, except for minus zero; longer
    // ones take the exponent layout.
    private static void writeInteger(JsonParser p, ByteSink out) throws IOException {
        char[] chars = p.getTextCharacters();
        int off = p.getTextOffset();
        int len = p.getTextLength();
        if (len == 2 && chars[off] == '-' && chars[off + 1] == '0') {
            out.write('0');
            return;
        }
        if (len - (chars[off] == '-' ? 1 : 0) > 21) {
            Es6Numbers.write(new String(chars, off, len), out);
            return;
        }
        for (int i = 0; i < len; i++) {
            out.write(chars[off + i]);
        }
    }

    private static void writeArray(JsonParser p, PointerSet pointers, ByteSink out) throws IOException {
        out.write('[');
        boolean first = true;
        int index = 0;
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            PointerSet child = pointers == null ? null : pointers.child(Integer.toString(index));
            index++;
            if (child != null && child.isTerminal()) {
                p.skipChildren();
                continue;
            }
            if (!first) {
                out.write(',');
            }
            first = false;
            writeValue(p, t, child, out);
        }
        out.write(']');
    }

    // Members are written in input order into the sink, remembering where each value
    // starts and ends; then the region is copied once and re-emitted in key order. One
    // copy per object level instead of one array per member.
    private static void writeObject(JsonParser p, PointerSet pointers, ByteSink out) throws IOException {
        int base = out.size();
        String[] names = new String[8];
        int[] bounds = new int[16];
        int count = 0;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken valueToken = p.nextToken();
            PointerSet child = pointers == null ? null : pointers.child(name);
            if (child != null && child.isTerminal()) {
                p.skipChildren();
                continue;
            }
            if (count == names.length) {
                names = java.util.Arrays.copyOf(names, count * 2);
                bounds = java.util.Arrays.copyOf(bounds, count * 4);
            }
            names[count] = name;
            bounds[2 * count] = out.size();
            writeValue(p, valueToken, child, out);
            bounds[2 * count + 1] = out.size();
            count++;
        }
        if (t != JsonToken.END_OBJECT) {
            throw new InvalidRequestException("malformed request JSON: unexpected " + t);
        }
        int[] order = sortedOrder(names, count);
        byte[] values = java.util.Arrays.copyOfRange(out.array(), base, out.size());
        out.truncate(base);
        out.write('{');
        for (int i = 0; i < count; i++) {
            int m = order[i];
            if (i > 0) {
                out.write(',');
            }
            String name = names[m];
            writeString(name.toCharArray(), 0, name.length(), out);
            out.write(':');
            out.write(values, bounds[2 * m] - base, bounds[2 * m + 1] - bounds[2 * m]);
        }
        out.write('}');
    }

    // RFC 8785 section 3.2.3: UTF-16 code unit order, which is String.compareTo.
    private static int[] sortedOrder(String[] names, int count) {
        int[] order = new int[count];
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        if (count <= 16) {
            for (int i = 1; i < count; i++) {
                int m = order[i];
                int j = i - 1;
                while (j >= 0 && names[order[j]].compareTo(names[m]) > 0) {
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
        java.util.Arrays.sort(boxed, (a, b) -> names[a].compareTo(names[b]));
        for (int i = 0; i < count; i++) {
            order[i] = boxed[i];
        }
        return order;
    }

    private static void writeString(char[] chars, int off, int len, ByteSink out) {
        out.write('"');
        int lone = out.writeJsonStringBody(chars, off, len);
        if (lone >= 0) {
            throw new InvalidRequestException("request JSON has a lone surrogate at index " + lone + " of a string");
        }
        out.write('"');
    }

}
