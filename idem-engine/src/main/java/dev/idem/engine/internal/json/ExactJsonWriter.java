package dev.idem.engine.internal.json;

import com.fasterxml.jackson.core.JsonGenerationException;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.JsonGeneratorDelegate;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.InvalidRequestException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Writes an object request to JSON with the caller's mapper, except for binary floating
 * point: a {@code double} is written in its RFC 8785 form (shortest round-trip digits; JDK
 * 17's {@code Double.toString} is not always shortest, and even Jackson's fast writer prints
 * {@code 4.9E-324} where the shortest is {@code 5e-324}), so a double field fingerprints
 * like the same number sent as text; and a NaN or an infinity is refused instead of being
 * written as the string {@code "NaN"}, which would make it equal a request that really
 * holds that string.
 */
final class ExactJsonWriter {
    private ExactJsonWriter() {
    }

    /** The JSON bytes of {@code value}. */
    static byte[] write(ObjectMapper mapper, Object value) throws JsonProcessingException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (JsonGenerator g = new FiniteNumbers(mapper.getFactory().createGenerator(bytes))) {
            mapper.writeValue(g, value);
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            // A ByteArrayOutputStream does not fail; this is only reachable through a serializer.
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Throws the 400 for a non-finite number if one is among the causes of {@code e}. */
    static void rethrowNonFinite(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof NonFiniteNumberException) {
                throw ((NonFiniteNumberException) t).toInvalidRequest();
            }
        }
    }

    /** A NaN or an infinity met while writing a request. */
    static final class NonFiniteNumberException extends JsonGenerationException {
        private static final long serialVersionUID = 1L;

        NonFiniteNumberException(String number, JsonGenerator g) {
            super("request JSON has a non-finite number (" + number + "), which JSON cannot represent", g);
        }

        InvalidRequestException toInvalidRequest() {
            return new InvalidRequestException("malformed request JSON: " + getOriginalMessage(), false, this);
        }
    }

    private static final class FiniteNumbers extends JsonGeneratorDelegate {
        FiniteNumbers(JsonGenerator d) {
            super(d, false);
        }

        @Override
        public void writeNumber(double v) throws IOException {
            if (!Double.isFinite(v)) {
                throw new NonFiniteNumberException(Double.toString(v), this);
            }
            delegate.writeNumber(Es6Numbers.doubleToString(v));
        }

        @Override
        public void writeNumber(float v) throws IOException {
            if (!Float.isFinite(v)) {
                throw new NonFiniteNumberException(Float.toString(v), this);
            }
            delegate.writeNumber(v);
        }

        @Override
        public void writeArray(double[] array, int offset, int length) throws IOException {
            writeStartArray(array, length);
            for (int i = offset, end = offset + length; i < end; i++) {
                writeNumber(array[i]);
            }
            writeEndArray();
        }
    }
}
