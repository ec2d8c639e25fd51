package dev.idem.engine.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Edges of the canonicalizer's building blocks that the document-level tests do not reach. */
class CanonicalInternalsTest {
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

    @Test
    void textIsTheUtf8DecodingWhereverTheFirstNonAsciiByteStands() {
        // Every length around the eight-byte steps, all ASCII and with one é, ŀ or 😀 at each position.
        ByteSink scratch = new ByteSink(4);
        for (int n = 0; n <= 40; n++) {
            String ascii = "x".repeat(n);
            byte[] plain = ascii.getBytes(StandardCharsets.UTF_8);
            assertThat(Utf8.text(plain, plain.length, scratch)).isEqualTo(ascii);
            for (String other : List.of("\u00e9", "\u0140", "\ud83d\ude00")) {
                for (int at = 0; at <= n; at++) {
                    String text = ascii.substring(0, at) + other + ascii.substring(at);
                    byte[] utf8 = (text + "\"tail").getBytes(StandardCharsets.UTF_8);
                    // Only the first bytes are the text: the rest of a work buffer is not.
                    int length = utf8.length - 5;
                    assertThat(Utf8.text(utf8, length, scratch)).as(text).isEqualTo(text);
                }
            }
        }
    }
}
