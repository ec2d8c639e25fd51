package dev.idem.engine.internal.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.JsonCodec;
import java.io.IOException;
import java.lang.reflect.Type;

/** The engine's default {@link JsonCodec}: Jackson 2, over a copy of the given mapper. Not API. */
public final class Jackson2JsonCodec implements JsonCodec {
    private final ObjectMapper mapper;

    /** A codec over a copy of {@code mapper} with default typing off and unknown properties ignored. */
    public Jackson2JsonCodec(ObjectMapper mapper) {
        // Lenient replays: a property the result type no longer has must not fail a retry.
        this.mapper = mapper.copy().deactivateDefaultTyping()
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    }

    /** The mapper used. */
    public ObjectMapper mapper() {
        return mapper;
    }

    /** The shortest round-trip decimal of a finite double. */
    public static String shortestDecimal(double value) {
        return Es6Numbers.doubleToString(value);
    }

    @Override
    public byte[] writeValue(Object value) throws IOException {
        return mapper.writeValueAsBytes(value);
    }

    @Override
    public byte[] writeRequest(Object request) throws IOException {
        try {
            return ExactJsonWriter.write(mapper, request);
        } catch (ExactJsonWriter.NonFiniteNumberException e) {
            throw e.toInvalidRequest();
        } catch (JsonProcessingException e) {
            ExactJsonWriter.rethrowNonFinite(e);
            throw e;
        }
    }

    @Override
    public Object readValue(byte[] json, int offset, int length, Type type) throws IOException {
        return mapper.readValue(json, offset, length, mapper.constructType(type));
    }
}
