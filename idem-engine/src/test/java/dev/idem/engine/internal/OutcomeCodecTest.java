package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyException;
import dev.idem.engine.JsonCodec;
import dev.idem.engine.internal.OutcomeCodec.Kind;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The stored outcome format read back as a replay reads it: every kind round trips and is told
 * by its kind byte, a result reads back the same whatever its characters and length (ASCII or
 * not, short or past the reader's buffer), through Jackson or another {@link JsonCodec} (which
 * is given the generic type, not Jackson's), and bytes that are not an outcome are refused with
 * an error that says what the kind byte was, never read as a wrong answer.
 */
class OutcomeCodecTest {
    private final ObjectMapper mapper = new ObjectMapper();
    private final OutcomeCodec codec = new OutcomeCodec(mapper);
    private final JavaType listOfMaps = mapper.getTypeFactory().constructType(
            new TypeReference<List<Map<String, String>>>() { });

    record Receipt(String id, long cents) {
    }

    @Test
    void everyKindRoundTrips() {
        byte[] success = codec.encodeSuccess(new Receipt("r-1", 1250));
        assertThat(codec.kind(success)).isEqualTo(Kind.SUCCESS);
        assertThat(codec.decodeSuccess(success, mapper.constructType(Receipt.class)))
                .isEqualTo(new Receipt("r-1", 1250));

        byte[] raw = {9, 'a', 'b', 'c', 9};
        byte[] bytes = codec.encodeBytes(raw, 1, 3);
        assertThat(codec.kind(bytes)).isEqualTo(Kind.BYTES);
        assertThat(bytes).containsExactly('B', 'a', 'b', 'c');

        byte[] failure = codec.encodeFailure("card_declined", "Karte abgelehnt: «Limit»");
        assertThat(codec.kind(failure)).isEqualTo(Kind.FAILURE);
        assertThat(codec.decodeFailure(failure)).containsExactly("card_declined", "Karte abgelehnt: «Limit»");

        byte[] marker = codec.encodeNotStored("outcome too large");
        assertThat(codec.kind(marker)).isEqualTo(Kind.NOT_STORED);
        assertThat(codec.decodeNotStored(marker)).isEqualTo("outcome too large");
    }

    @Test
    void resultsReadBackTheSameWhateverTheirCharactersAndLength() {
        List<String> texts = List.of("", "plain", "é", "naïve ☃ 🎉", "a".repeat(8191), "a".repeat(8192),
                "a".repeat(8193), "b".repeat(20_000), "ü".repeat(5000), "x".repeat(300));
        // Long and short, ASCII and not, in turns: each read must not see what the one before left behind.
        for (int round = 0; round < 2; round++) {
            for (String text : texts) {
                List<Map<String, String>> value = List.of(Map.of("text", text));
                byte[] stored = codec.encodeSuccess(value);
                assertThat(codec.decodeSuccess(stored, listOfMaps)).as("%.20s", text).isEqualTo(value);
            }
        }
    }

    @Test
    void anotherJsonLibraryIsGivenTheGenericTypeAndTheJsonAfterTheKindByte() {
        List<Type> seen = new ArrayList<>();
        JsonCodec other = new JsonCodec() {
            @Override
            public byte[] writeValue(Object value) throws IOException {
                return mapper.writeValueAsBytes(value);
            }

            @Override
            public byte[] writeRequest(Object request) throws IOException {
                return mapper.writeValueAsBytes(request);
            }

            @Override
            public Object readValue(byte[] json, int offset, int length, Type type) throws IOException {
                seen.add(type);
                return mapper.readValue(json, offset, length, mapper.constructType(type));
            }
        };
        OutcomeCodec withOther = new OutcomeCodec(other);
        assertThat(withOther.json()).isSameAs(other);
        List<Map<String, String>> value = List.of(Map.of("text", "naïve"));
        byte[] stored = withOther.encodeSuccess(value);
        assertThat(stored[0]).isEqualTo((byte) 'S');
        assertThat(withOther.decodeSuccess(stored, listOfMaps)).isEqualTo(value);
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0)).isInstanceOfSatisfying(ParameterizedType.class, p -> {
            assertThat(p.getRawType()).isEqualTo(List.class);
            assertThat(p.getActualTypeArguments()[0]).isInstanceOf(ParameterizedType.class);
        });
    }

    @Test
    void bytesThatAreNotAnOutcomeAreRefusedNamingTheKindByte() {
        assertThatThrownBy(() -> codec.kind(new byte[0])).isInstanceOf(IdempotencyException.class)
                .hasMessageContaining("kind byte missing");
        assertThatThrownBy(() -> codec.kind(new byte[] {(byte) 0xC3, '{'})).isInstanceOf(IdempotencyException.class)
                .hasMessageContaining("kind byte 195)");
        assertThatThrownBy(() -> codec.kind(new byte[] {'X'})).hasMessageContaining("kind byte 88)");
        byte[] notJson = "S{\"id\":".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> codec.decodeSuccess(notJson, mapper.constructType(Receipt.class)))
                .isInstanceOf(IdempotencyException.class).hasMessageContaining("cannot be read as");
        assertThatThrownBy(() -> codec.decodeFailure("F{".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IdempotencyException.class);
        assertThatThrownBy(() -> codec.decodeNotStored("U{".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IdempotencyException.class);
    }

    @Test
    void aResultThatCannotBeWrittenNamesItsType() {
        Object unwritable = new Object() {
            public Object getSelf() {
                throw new IllegalStateException("no");
            }
        };
        assertThatThrownBy(() -> codec.encodeSuccess(unwritable)).isInstanceOf(IdempotencyException.class)
                .hasMessageContaining("of type " + unwritable.getClass().getName());
        assertThat(codec.decodeSuccess(codec.encodeSuccess(null), mapper.constructType(Receipt.class))).isNull();
    }
}
