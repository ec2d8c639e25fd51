package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.InvalidRequestException;
import dev.idem.engine.internal.json.PointerSet;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Edges of the fingerprint's building blocks that the document-level tests do not reach. */
class FingerprintInternalsTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void utf8LengthMatchesTheJdkAndCountsALoneSurrogateAsThree() {
        for (String s : List.of("\u007f", "\u0080", "\u07ff", "\u0800", "\uffff", "\ud83d\ude00", "a\u00e9\u20ac\ud83d\ude00")) {
            assertThat(Fingerprinter.utf8Length(s)).as(s).isEqualTo(s.getBytes(StandardCharsets.UTF_8).length);
        }
        assertThat(Fingerprinter.utf8Length("\ud800")).isEqualTo(3);
        assertThat(Fingerprinter.utf8Length("\ud800a")).isEqualTo(4);
        assertThat(Fingerprinter.utf8Length("\udc00\ud800")).isEqualTo(6);
    }

    @Test
    void theSizeLimitAppliesToObjectRequestsAsWritten() {
        // {"a":"12345678"} is 16 bytes as Jackson writes it.
        new Fingerprinter(MAPPER, 16, PointerSet.EMPTY).fingerprint("op", Map.of("a", "12345678"), PointerSet.EMPTY);
        assertThatThrownBy(() -> new Fingerprinter(MAPPER, 15, PointerSet.EMPTY)
                .fingerprint("op", Map.of("a", "12345678"), PointerSet.EMPTY))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.httpStatus()).isEqualTo(413))
                .hasMessageContaining("request is 16 bytes; the limit is 15");
    }

    @Test
    void doubleArraysAndFloatsInsideObjectsAreWrittenInPlace() {
        Fingerprinter fp = new Fingerprinter(MAPPER, 1 << 20, PointerSet.EMPTY);
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("a", new double[] {1.5, 2e23});
        map.put("b", 0.5f);
        map.put("c", 2);
        assertThat(fp.fingerprint("op", map, PointerSet.EMPTY))
                .isEqualTo(fp.fingerprint("op", "{\"a\":[1.5,2e23],\"b\":0.5,\"c\":2}", PointerSet.EMPTY));
    }

}
