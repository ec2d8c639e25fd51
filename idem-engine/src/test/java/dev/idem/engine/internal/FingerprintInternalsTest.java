package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Edges of the fingerprint's building blocks that the document-level tests do not reach. */
class FingerprintInternalsTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static String body(String s) {
        ByteSink sink = new ByteSink(1);
        assertThat(sink.writeJsonStringBody(s.toCharArray(), 0, s.length())).isEqualTo(-1);
        return new String(sink.toByteArray(), StandardCharsets.UTF_8);
    }

    @Test
    void stringBodiesGrowATinyBufferAndEncodeEveryRangeAtItsEdges() {
        String edges = "\u001f \u007f\u0080\u07ff\u0800\ud7ff\ue000\uffff\ud800\udc00\udbff\udfff\"\\";
        assertThat(body(edges)).isEqualTo("\\u001f \u007f\u0080\u07ff\u0800\ud7ff\ue000\uffff\ud800\udc00\udbff\udfff\\\"\\\\");
        for (String unit : List.of("\u20ac", "\u0001", "\ud83d\ude00", "\u00e9", "a")) {
            String s = unit.repeat(300);
            String expected = unit.equals("\u0001") ? "\\u0001".repeat(300) : s;
            assertThat(body(s)).isEqualTo(expected);
            assertThat(body("x" + s + "\n")).isEqualTo("x" + expected + "\\n");
        }
    }

    @Test
    void aLoneSurrogateIsReportedAtItsIndex() {
        Map<String, Integer> cases = Map.of("ab\ud800", 2, "abc\udc00d", 3, "a\ud800b", 1, "xy\ud83d\ude00z\udfff", 5);
        cases.forEach((s, expected) -> {
            ByteSink sink = new ByteSink(1);
            assertThat(sink.writeJsonStringBody(s.toCharArray(), 0, s.length())).as(s).isEqualTo(expected);
        });
    }

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

    @Test
    void pointerSetsMerge() {
        PointerSet a = PointerSet.of(List.of("/a"));
        PointerSet b = PointerSet.of(List.of("/b/c"));
        byte[] json = "{\"a\":1,\"b\":{\"c\":2,\"d\":3},\"e\":4}".getBytes(StandardCharsets.UTF_8);
        assertThat(new String(JsonCanonicalizer.canonicalize(json, a.plus(b)), StandardCharsets.UTF_8))
                .isEqualTo("{\"b\":{\"d\":3},\"e\":4}");
        assertThat(new String(JsonCanonicalizer.canonicalize(json, b.plus(a)), StandardCharsets.UTF_8))
                .isEqualTo("{\"b\":{\"d\":3},\"e\":4}");
        assertThat(a.plus(PointerSet.EMPTY)).isSameAs(a);
        assertThat(PointerSet.EMPTY.plus(b)).isSameAs(b);
        assertThat(PointerSet.EMPTY.isEmpty()).isTrue();
        assertThat(a.isEmpty()).isFalse();
        assertThat(PointerSet.of(List.of("/x~1y~0")).child("x/y~").isTerminal()).isTrue();
        assertThatThrownBy(() -> PointerSet.of(List.of("/x~"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void longNumbersAreAbbreviatedInMessages() {
        String number = "1" + "2".repeat(60) + "e1234567890";
        assertThatThrownBy(() -> JsonCanonicalizer.canonicalize("[" + number + "]", PointerSet.EMPTY))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageEndingWith(number.substring(0, 37) + "...");
    }
}
