package dev.idem.engine.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.idem.api.InvalidRequestException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

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

    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private JsonCanonicalizer() {
    }

    /** Canonicalizes UTF-8 JSON. */
    public static byte[] canonicalize(byte[] json, PointerSet excluded) {
        ByteSink out = new ByteSink(json.length);
        try (JsonParser p = STRICT.createParser(json)) {
            write(p, excluded, out);
        } catch (IOException e) {
            throw invalid(e);
        }
        return out.toByteArray();
    }

    /** Canonicalizes JSON text. */
    public static byte[] canonicalize(String json, PointerSet excluded) {
        ByteSink out = new ByteSink(json.length());
        try (JsonParser p = STRICT.createParser(json)) {
            write(p, excluded, out);
        } catch (IOException e) {
            throw invalid(e);
        }
        return out.toByteArray();
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
                writeString(p.getText(), out);
                break;
            case VALUE_NUMBER_INT:
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

    private static void writeObject(JsonParser p, PointerSet pointers, ByteSink out) throws IOException {
        List<String> names = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        ByteSink scratch = new ByteSink(64);
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            checkSurrogates(name);
            JsonToken valueToken = p.nextToken();
            PointerSet child = pointers == null ? null : pointers.child(name);
            if (child != null && child.isTerminal()) {
                p.skipChildren();
                continue;
            }
            scratch.reset();
            writeValue(p, valueToken, child, scratch);
            names.add(name);
            values.add(scratch.toByteArray());
        }
        if (t != JsonToken.END_OBJECT) {
            throw new InvalidRequestException("malformed request JSON: unexpected " + t);
        }
        Integer[] order = new Integer[names.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        // UTF-16 code unit order, as RFC 8785 section 3.2.3 requires: String.compareTo.
        java.util.Arrays.sort(order, (a, b) -> names.get(a).compareTo(names.get(b)));
        out.write('{');
        for (int i = 0; i < order.length; i++) {
            if (i > 0) {
                out.write(',');
            }
            writeChecked(names.get(order[i]), out);
            out.write(':');
            out.write(values.get(order[i]));
        }
        out.write('}');
    }

    private static void writeString(String s, ByteSink out) {
        checkSurrogates(s);
        writeChecked(s, out);
    }

    private static void writeChecked(String s, ByteSink out) {
        out.write('"');
        int start = 0;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            out.writeUtf8(s, start, i);
            start = i + 1;
            out.write('\\');
            switch (c) {
                case '"': out.write('"'); break;
                case '\\': out.write('\\'); break;
                case '\b': out.write('b'); break;
                case '\f': out.write('f'); break;
                case '\n': out.write('n'); break;
                case '\r': out.write('r'); break;
                case '\t': out.write('t'); break;
                default:
                    out.writeAscii("u00");
                    out.write(HEX[c >> 4]);
                    out.write(HEX[c & 0xF]);
            }
        }
        out.writeUtf8(s, start, n);
        out.write('"');
    }

    private static void checkSurrogates(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw new InvalidRequestException("request JSON has a lone surrogate at index " + i + " of a string");
            }
            if (Character.isLowSurrogate(c)) {
                throw new InvalidRequestException("request JSON has a lone surrogate at index " + i + " of a string");
            }
        }
    }
}
