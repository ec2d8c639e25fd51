package dev.idem.engine.internal.json;

import static dev.idem.engine.internal.json.StreamingVsLegacyProperties.outcome;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hand-picked corners of the grammar and the limits on which the streaming canonicalizer
 * must give the legacy verdict, and the few inputs where it is deliberately stricter.
 */
class StreamingVsLegacyEdgesTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "0", "-0", "-0.0e5", "0e-0", "1E+2", "1e-0", "1e05", "[1,2]   ", " \t\r\n[]", "{}", "\"\"", "[[]]", "[{}]",
            "{\"a\" : 1 , \"b\" : 2 }", "[\"\\u0000\\u001F\\u007f\"]", "[\"\\/\"]", "[1,,2]", "[,1]", "{,}", "{\"a\"}",
            "{\"a\":}", "{1:2}", "[1}", "{\"a\":1]", "nul", "nulll", "True", "[tru]", "-", "--1", "1.5e", "1.5e+",
            "0.", ".0", "00", "-00", "01.5", "[-]", "[1 2]", "[1\u00a0]", "\u00a0{}", "{\"a\":1}\u0000", "\u0000",
            "[1]//", "/**/[1]", "#", "'a'", "{a:1}", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"abc", "\"\t\"", "\"\\",
            "\"\\u", "[\"a\\ud83d\\ude00\"]", "[\"\\uD83D\\uDE00\"]", "[\"\\ud83d\\u0041\"]", "[\"\\ude00\"]",
            "[\"\\ud83dx\"]", "[\"\\ud83d\"]", "\uFEFF{}", "[truex]", "truex", "true false", "[1]]", "{\"a\":1}}",
            "[\"\u2028\u2029\"]", "{\"\":1,\"\":2}", "{\"a\":{\"b\":[1,{\"b\":1,\"b\":2}]}}", "{\"\\u0061\":1,\"a\":2}",
            "[1.0e-1000000000]", "[1e999999999]", "[-1E-999999999]", "[0.0000000000000000000000001e25]",
            "{\"b\":1,\"a\":[{\"d\":1,\"c\":2},3],\"a\\u0000\":0,\"a\\n\":0,\"\\ud83d\\ude00\":0,\"\\uffff\":0}"})
    void theLegacyVerdict(String json) {
        assertThat(outcome(() -> JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY)))
                .isEqualTo(outcome(() -> LegacyCanonicalizer.canonicalize(json, PointerSet.EMPTY)));
        byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
        assertThat(outcome(() -> JsonCanonicalizer.canonicalize(utf8, PointerSet.EMPTY)))
                .isEqualTo(outcome(() -> LegacyCanonicalizer.canonicalize(utf8, PointerSet.EMPTY)));
    }

    @Test
    void theParserLimitsAreWhereTheyWere() {
        List<String> cases = List.of("[".repeat(1000) + "]".repeat(1000), "[".repeat(1001) + "]".repeat(1001),
                "[" + "{\"a\":".repeat(999) + "1" + "}".repeat(999) + "]", "[" + "{\"a\":".repeat(1000) + "1" + "}".repeat(1000) + "]",
                "[" + "1".repeat(1000) + "]", "[" + "1".repeat(1001) + "]", "[-" + "1".repeat(1000) + "]",
                "[" + "1".repeat(500) + "." + "2".repeat(499) + "e5]", "[" + "1".repeat(500) + "." + "2".repeat(499) + "e50]",
                "[0." + "0".repeat(998) + "1]", "[0." + "0".repeat(1000) + "1]");
        for (String json : cases) {
            assertThat(outcome(() -> JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY))).as(json.substring(0, 20))
                    .isEqualTo(outcome(() -> LegacyCanonicalizer.canonicalize(json, PointerSet.EMPTY)));
        }
    }

    /**
     * Jackson's text parser did not count the zero before the point of {@code 0.ddd}, its
     * UTF-8 parser did; the limit now counts it for text too, so both inputs get one verdict.
     */
    @Test
    void theZeroBeforeThePointCountsTowardsTheNumberLimitInTextAsInBytes() {
        String json = "[0." + "0".repeat(999) + "1]";
        String legacyBytes = outcome(() -> LegacyCanonicalizer.canonicalize(json.getBytes(StandardCharsets.UTF_8),
                PointerSet.EMPTY));
        assertThat(legacyBytes).isEqualTo("refused 413");
        assertThat(outcome(() -> JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY))).isEqualTo(legacyBytes);
        assertThat(outcome(() -> LegacyCanonicalizer.canonicalize(json, PointerSet.EMPTY))).startsWith("ok");
    }

    @Test
    void byteOrderMarksAndWideEncodingsAreReadAsTheLegacyParserReadThem() {
        String json = "{\"b\":[1,\"\u00e9\ud83d\ude00\"],\"a\":null}";
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
        for (byte[] input : List.of(concat(bom, json.getBytes(StandardCharsets.UTF_8)),
                json.getBytes(StandardCharsets.UTF_16BE), json.getBytes(StandardCharsets.UTF_16LE),
                json.getBytes(StandardCharsets.UTF_16), ("\uFEFF" + json).getBytes(StandardCharsets.UTF_16LE),
                json.getBytes(java.nio.charset.Charset.forName("UTF-32BE")),
                json.getBytes(java.nio.charset.Charset.forName("UTF-32LE")),
                ("\uFEFF" + json).getBytes(java.nio.charset.Charset.forName("UTF-32BE")),
                "7".getBytes(StandardCharsets.UTF_16LE), "[]".getBytes(StandardCharsets.UTF_16BE))) {
            assertThat(outcome(() -> JsonCanonicalizer.canonicalize(input, PointerSet.EMPTY)))
                    .isEqualTo(outcome(() -> LegacyCanonicalizer.canonicalize(input, PointerSet.EMPTY)))
                    .startsWith("ok");
        }
    }

    /**
     * Bytes that are not UTF-8 but that Jackson decoded anyway (an overlong form, surrogates
     * encoded one by one as CESU-8 does) are refused: JSON text is UTF-8 (RFC 8259), and two
     * spellings of one character would otherwise be two fingerprints' worth of the same text.
     */
    @ParameterizedTest
    @ValueSource(strings = {"22c08022", "22e0808022", "22eda0bdedb88022", "22f4908080", "22f880808080", "2280", "22c3",
            "22eda080"})
    void bytesThatAreNotUtf8AreRefused(String hex) {
        byte[] input = java.util.HexFormat.of().parseHex(hex);
        assertThatThrownBy(() -> JsonCanonicalizer.canonicalize(input, PointerSet.EMPTY))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.httpStatus()).isEqualTo(400));
    }

    @Test
    void aLoneSurrogateIsReportedAtItsIndexInTheString() {
        for (String json : List.of("[\"ab\\ud800\"]", "[\"\u00e9\ud83d\ude00\\n\\udc00\"]", "{\"x\ud800\":1}")) {
            String legacy = message(() -> LegacyCanonicalizer.canonicalize(json, PointerSet.EMPTY));
            assertThat(legacy).contains("lone surrogate at index");
            assertThat(message(() -> JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY))).isEqualTo(legacy);
        }
    }

    private static String message(Runnable r) {
        try {
            r.run();
        } catch (InvalidRequestException e) {
            return e.getMessage();
        }
        throw new AssertionError("expected a refusal");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
