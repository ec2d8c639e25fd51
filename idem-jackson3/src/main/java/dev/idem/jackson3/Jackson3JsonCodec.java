package dev.idem.jackson3;

import dev.idem.api.InvalidRequestException;
import dev.idem.engine.JsonCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.util.JsonGeneratorDelegate;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The engine's JSON through Jackson 3 ({@code tools.jackson}): results, step results and object
 * requests are written and read with the application's {@link JsonMapper}, its modules and
 * settings (java.time is built into Jackson 3), instead of a second, differently configured
 * Jackson 2 mapper.
 *
 * <pre>{@code
 * IdempotencyEngine engine = IdempotencyEngine.builder()
 *         .store(store)
 *         .jsonCodec(Jackson3JsonCodec.of(jsonMapper))
 *         .build();
 * }</pre>
 *
 * <p>A copy of the mapper is used, with default typing off (nothing read back from a store may
 * name a class to create) and unknown properties ignored (so result types may gain or lose
 * fields between deploys). Object requests are written with exact numbers, as
 * {@link JsonCodec#writeRequest} requires: a {@code double} as its shortest decimal, NaN and the
 * infinities refused with {@link InvalidRequestException}. A request's fingerprint is then the
 * one Jackson 2 gives it whenever both write the same JSON values; they differ where the two
 * mappers' settings do (Jackson 3 writes dates as ISO-8601 strings, a Jackson 2 mapper with the
 * JSR-310 module as numbers by default), so switch a running service's mapper when no key with
 * such a request is in flight, or keep the date format. Thread-safe.
 */
public final class Jackson3JsonCodec implements JsonCodec {
    private final JsonMapper mapper;

    private Jackson3JsonCodec(JsonMapper mapper) {
        this.mapper = mapper.rebuild().deactivateDefaultTyping()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    }

    /**
     * A codec over a copy of {@code mapper}.
     *
     * @param mapper the application's mapper
     * @return the codec
     */
    public static Jackson3JsonCodec of(JsonMapper mapper) {
        return new Jackson3JsonCodec(Objects.requireNonNull(mapper, "mapper"));
    }

    @Override
    public byte[] writeValue(Object value) throws IOException {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (JacksonException e) {
            throw new IOException(e.getOriginalMessage(), e);
        }
    }

    @Override
    public byte[] writeRequest(Object request) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = new FiniteNumbers(mapper.createGenerator(out))) {
            mapper.writeValue(g, request);
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof NonFiniteNumber n) {
                    throw new InvalidRequestException("malformed request JSON: request JSON has a non-finite number ("
                            + n.number + "), which JSON cannot represent", false, n);
                }
            }
            if (e instanceof JacksonException j) {
                throw new IOException(j.getOriginalMessage(), e);
            }
            throw e;
        }
        return out.toByteArray();
    }

    @Override
    public Object readValue(byte[] json, int offset, int length, Type type) throws IOException {
        try {
            return mapper.readValue(json, offset, length, mapper.constructType(type));
        } catch (JacksonException e) {
            throw new IOException(e.getOriginalMessage(), e);
        }
    }

    /** A NaN or an infinity met while writing a request. */
    private static final class NonFiniteNumber extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String number;

        NonFiniteNumber(String number) {
            super("non-finite number " + number, null, false, false);
            this.number = number;
        }
    }

    /** Writes doubles as their shortest decimal and refuses non-finite numbers, as the engine's Jackson 2 writer does. */
    private static final class FiniteNumbers extends JsonGeneratorDelegate {
        FiniteNumbers(JsonGenerator d) {
            super(d, false);
        }

        @Override
        public JsonGenerator writeNumber(double v) {
            if (!Double.isFinite(v)) {
                throw new NonFiniteNumber(Double.toString(v));
            }
            delegate.writeNumber(JsonCodec.shortestDecimal(v));
            return this;
        }

        @Override
        public JsonGenerator writeNumber(float v) {
            if (!Float.isFinite(v)) {
                throw new NonFiniteNumber(Float.toString(v));
            }
            delegate.writeNumber(v);
            return this;
        }

        @Override
        public JsonGenerator writeArray(double[] array, int offset, int length) {
            writeStartArray(array, length);
            for (int i = offset, end = offset + length; i < end; i++) {
                writeNumber(array[i]);
            }
            writeEndArray();
            return this;
        }
    }
}
