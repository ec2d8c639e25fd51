package dev.idem.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.InvalidRequestException;
import dev.idem.engine.internal.json.Jackson2JsonCodec;
import java.io.IOException;
import java.lang.reflect.Type;

/**
 * How the engine writes results, step results and object requests as JSON, and reads results
 * back: the one place it depends on a JSON library. The default is Jackson 2
 * ({@link #jackson2}, over {@link IdempotencyEngineBuilder#objectMapper}); idem-jackson3
 * provides Jackson 3, so an application on Jackson 3 (Spring Boot 4) hands the engine its own
 * mapper, with its modules and settings.
 *
 * <p>Fingerprints must not depend on the codec: a request's fingerprint is the SHA-256 of the
 * RFC 8785 canonical form of the JSON {@link #writeRequest} writes, and canonicalization makes
 * member order, whitespace and number spelling irrelevant, but not number values. So
 * {@code writeRequest} must write a {@code double} or {@code float} as its shortest round-trip
 * decimal ({@link #shortestDecimal}), never a longer expansion, and must refuse NaN and the
 * infinities with {@link InvalidRequestException} rather than write them as strings. Two codecs
 * that write the same JSON values for a request (dates in the same form, the same property
 * names) then give it the same fingerprint; idem-jackson3's tests pin this against the engine's
 * golden vectors.
 *
 * <p>Implementations are thread-safe and must not write type information into the JSON (nothing
 * read back from a store may name a class to create).
 */
public interface JsonCodec {
    /**
     * The JSON of a result or a step result.
     *
     * @param value the value, possibly null
     * @return its JSON bytes (UTF-8)
     * @throws IOException if the value cannot be written as JSON
     */
    byte[] writeValue(Object value) throws IOException;

    /**
     * The JSON of an object request, with exact numbers as the class Javadoc says.
     *
     * @param request the request (a POJO, a Map, a tree node)
     * @return its JSON bytes (UTF-8)
     * @throws InvalidRequestException if the request holds NaN or an infinity
     * @throws IOException if the request cannot be written as JSON
     */
    byte[] writeRequest(Object request) throws IOException;

    /**
     * Reads a value of {@code type}, leniently: properties the type does not have are ignored,
     * so result types may gain or lose fields between deploys.
     *
     * @param json the bytes
     * @param offset where the JSON starts
     * @param length how many bytes it has
     * @param type the type to read: a {@code Class}, a {@code ParameterizedType} or a
     *     {@code GenericArrayType}
     * @return the value
     * @throws IOException if the bytes cannot be read as {@code type}
     */
    Object readValue(byte[] json, int offset, int length, Type type) throws IOException;

    /**
     * The Jackson 2 codec the engine uses by default: a copy of {@code mapper} with default
     * typing off and unknown properties ignored.
     *
     * @param mapper the mapper
     * @return the codec
     */
    static JsonCodec jackson2(ObjectMapper mapper) {
        return new Jackson2JsonCodec(mapper);
    }

    /**
     * The decimal {@link #writeRequest} must write for {@code value}: the shortest that reads
     * back as the same double, in ECMAScript's layout (RFC 8785).
     *
     * @param value a finite double
     * @return its shortest decimal
     * @throws IllegalArgumentException if {@code value} is NaN or infinite
     */
    static String shortestDecimal(double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("not a finite number: " + value);
        }
        return Jackson2JsonCodec.shortestDecimal(value);
    }
}
