package dev.idem.engine.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.JsonCodec;
import dev.idem.engine.internal.json.Jackson2JsonCodec;
import dev.idem.engine.protection.OutcomeFilter;
import java.io.IOException;

/**
 * The engine's outcome format, opaque to stores: one kind byte, then JSON. {@code S}
 * marks a success and is followed by the result as the {@link JsonCodec} writes it; {@code B}
 * marks a success stored as plain bytes ({@code dev.idem.engine.StoredBytes}), followed by them; {@code F}
 * marks a final failure and is followed by {@code {"code":...,"message":...}}; {@code U}
 * marks an outcome that could not be stored and is followed by {@code {"reason":...}}. No type
 * information is written, so nothing read back from a store can name a class to create.
 */
public final class OutcomeCodec {
    private static final byte SUCCESS = 'S';
    private static final byte BYTES = 'B';
    private static final byte FAILURE = 'F';
    private static final byte NOT_STORED = 'U';

    /** What a stored outcome holds. */
    public enum Kind {
        /** The work's result. */
        SUCCESS,
        /** The work's result, stored as plain bytes (not JSON). */
        BYTES,
        /** A final failure: code and message. */
        FAILURE,
        /** A marker: the work ran but its outcome could not be stored; holds the reason. */
        NOT_STORED
    }

    private final ObjectMapper mapper;
    private final JsonCodec json;
    private final boolean jackson2;

    /** Uses a copy of {@code mapper} with default typing switched off and unknown properties ignored. */
    public OutcomeCodec(ObjectMapper mapper) {
        Jackson2JsonCodec codec = new Jackson2JsonCodec(mapper);
        this.mapper = codec.mapper();
        this.json = codec;
        this.jackson2 = true;
    }

    /**
     * Writes and reads results and step results with {@code json}; failures and markers, whose
     * format is the engine's own, and result types are still handled with Jackson 2.
     */
    public OutcomeCodec(JsonCodec json) {
        this.mapper = new Jackson2JsonCodec(new ObjectMapper()).mapper();
        this.json = json;
        this.jackson2 = json instanceof Jackson2JsonCodec;
    }

    /** The mapper used, for callers that build {@link JavaType}s. */
    public ObjectMapper mapper() {
        return mapper;
    }

    /** The codec of results and object requests. */
    public JsonCodec json() {
        return json;
    }

    /** Encodes a success value. */
    public byte[] encodeSuccess(Object value) {
        try {
            return withKind(SUCCESS, json.writeValue(value));
        } catch (IOException e) {
            throw new IdempotencyException("the work's result of type "
                    + (value == null ? "null" : value.getClass().getName()) + " cannot be written as JSON", e);
        }
    }

    /** Encodes a final failure. */
    public byte[] encodeFailure(String code, String message) {
        ObjectNode node = mapper.createObjectNode();
        node.put("code", code);
        node.put("message", message);
        try {
            return withKind(FAILURE, mapper.writeValueAsBytes(node));
        } catch (IOException e) {
            throw new IllegalStateException("cannot happen: writing a two-string object", e);
        }
    }

    /** Encodes a success stored as plain bytes: {@code bytes[offset, offset + length)}. */
    public byte[] encodeBytes(byte[] bytes, int offset, int length) {
        byte[] out = new byte[length + 1];
        out[0] = BYTES;
        System.arraycopy(bytes, offset, out, 1, length);
        return out;
    }

    private static byte[] withKind(byte kind, byte[] json) {
        byte[] out = new byte[json.length + 1];
        out[0] = kind;
        System.arraycopy(json, 0, out, 1, json.length);
        return out;
    }

    /** Encodes the marker stored when the work ran but its outcome could not be stored. */
    public byte[] encodeNotStored(String reason) {
        ObjectNode node = mapper.createObjectNode();
        node.put("reason", reason);
        try {
            return withKind(NOT_STORED, mapper.writeValueAsBytes(node));
        } catch (IOException e) {
            throw new IllegalStateException("cannot happen: writing a one-string object", e);
        }
    }

    /** What the stored outcome holds. */
    public Kind kind(byte[] outcome) {
        if (outcome.length > 0) {
            switch (outcome[0]) {
                case SUCCESS: return Kind.SUCCESS;
                case BYTES: return Kind.BYTES;
                case FAILURE: return Kind.FAILURE;
                case NOT_STORED: return Kind.NOT_STORED;
                default: break;
            }
        }
        throw new IdempotencyException("the stored outcome is not in idem's format (kind byte "
                + (outcome.length == 0 ? "missing" : Integer.toString(outcome[0] & 0xFF)) + ")");
    }

    /** Decodes the reason of a not-stored marker. */
    public String decodeNotStored(byte[] outcome) {
        try {
            return mapper.readTree(outcome, 1, outcome.length - 1).path("reason").asText("");
        } catch (IOException e) {
            throw new IdempotencyException("the stored marker cannot be read", e);
        }
    }

    /**
     * Decodes a success outcome as {@code type}, leniently: properties the type no longer
     * has are ignored, so a result type may gain or lose fields between deploys while older
     * records are still replayed.
     */
    public Object decodeSuccess(byte[] outcome, JavaType type) {
        try {
            if (!jackson2) {
                // Another library gets the plain Java type.
                return json.readValue(outcome, 1, outcome.length - 1, ReflectTypes.of(type));
            }
            char[] chars = asciiChars(outcome);
            if (chars == null) {
                return json.readValue(outcome, 1, outcome.length - 1, type);
            }
            // Jackson's parser over chars costs less to create than its UTF-8 one (no byte
            // bootstrapper, no quad buffer); an ASCII outcome reads the same either way.
            ObjectMapper reader = ((Jackson2JsonCodec) json).mapper();
            try (JsonParser parser = reader.getFactory().createParser(chars, 0, outcome.length - 1)) {
                return reader.readValue(parser, type);
            } finally {
                SPARE_CHARS.get()[0] = chars;
            }
        } catch (IOException e) {
            throw new IdempotencyException("the stored outcome cannot be read as " + type
                    + "; was the result type changed since it was stored?", e);
        }
    }

    private static final int MAX_SPARE_CHARS = 8192;
    private static final ThreadLocal<char[][]> SPARE_CHARS = ThreadLocal.withInitial(() -> new char[1][]);

    /**
     * The JSON after the kind byte as chars, in the thread's spare buffer (taken out of its
     * slot while the parser reads it, so a nested decode gets its own), or null if it is not
     * all ASCII or too long to keep a buffer for.
     */
    private static char[] asciiChars(byte[] outcome) {
        int n = outcome.length - 1;
        if (n > MAX_SPARE_CHARS) {
            return null;
        }
        char[][] slot = SPARE_CHARS.get();
        char[] chars = slot[0];
        if (chars == null || chars.length < n) {
            chars = new char[Math.max(n, 256)];
        }
        for (int i = 0; i < n; i++) {
            byte b = outcome[i + 1];
            if (b < 0) {
                return null;
            }
            chars[i] = (char) b;
        }
        slot[0] = null;
        return chars;
    }

    /**
     * The success outcome {@code filter} keeps of {@code success}: its JSON read into a tree
     * (numbers exactly as written), given to {@link OutcomeFilter#keep}, and written again.
     *
     * @throws Exception what the filter throws, or an {@link IOException} if what it returns cannot be written
     */
    public byte[] keep(OutcomeFilter filter, IdempotencyKey key, byte[] success) throws Exception {
        JsonNode kept = filter.keep(key, tree(success));
        if (kept == null) {
            throw new IllegalStateException("the outcome filter " + filter + " returned null; return a JSON tree"
                    + " (NullNode for JSON null)");
        }
        return withKind(SUCCESS, trees().writeValueAsBytes(kept));
    }

    /**
     * The success outcome a replay decodes: what {@link OutcomeFilter#rebuild} makes of the stored one.
     *
     * @throws Exception what the filter throws
     */
    public byte[] rebuild(OutcomeFilter filter, IdempotencyKey key, byte[] success) throws Exception {
        JsonNode rebuilt = filter.rebuild(key, tree(success));
        if (rebuilt == null) {
            throw new IllegalStateException("the outcome filter " + filter + " rebuilt null; return a JSON tree"
                    + " (NullNode for JSON null)");
        }
        return withKind(SUCCESS, trees().writeValueAsBytes(rebuilt));
    }

    private JsonNode tree(byte[] success) throws IOException {
        return trees().readTree(success, 1, success.length - 1);
    }

    private ObjectMapper trees() {
        ObjectMapper t = treeMapper;
        if (t == null) {
            // Decimals as BigDecimal, kept as written: a filter must not round an amount.
            t = mapper.copy().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                    .configure(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES, false);
            treeMapper = t;
        }
        return t;
    }

    private volatile ObjectMapper treeMapper;

    /** Decodes a failure outcome into {code, message}. */
    public String[] decodeFailure(byte[] outcome) {
        try {
            com.fasterxml.jackson.databind.JsonNode node = mapper.readTree(outcome, 1, outcome.length - 1);
            return new String[] {node.path("code").asText(""), node.path("message").asText("")};
        } catch (IOException e) {
            throw new IdempotencyException("the stored failure cannot be read", e);
        }
    }
}
