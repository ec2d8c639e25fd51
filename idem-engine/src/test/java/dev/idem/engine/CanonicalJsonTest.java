package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CanonicalJsonTest {

    private static final String RFC_OUTPUT =
            "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
                    + "\"string\":\"\u20ac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}";

    private static String rfc8785Section322Input(String firstNumber) {
        return "{\n"
                + "  \"numbers\": [" + firstNumber + ", 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n"
                + "  \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\n"
                + "  \"literals\": [null, true, false]\n"
                + "}";
    }

    @Test
    void rfc8785Section322ExampleIsByteExactWhereTheLiteralIsTheShortestFormOfADouble() {
        assertThat(CanonicalJson.canonicalize(rfc8785Section322Input("333333333.3333333"))).isEqualTo(RFC_OUTPUT);
        assertThat(CanonicalJson.canonicalize(rfc8785Section322Input("3333333333333333e-7"))).isEqualTo(RFC_OUTPUT);
    }

    @Test
    void rfc8785Section322ExampleKeepsTheExactValueOfALiteralNoDoubleHolds() {
        // 333333333.33333329 and 333333333.3333333 are two numbers; RFC 8785 prints both as the
        // second (their nearest double). By exact value, the first keeps its digits.
        assertThat(CanonicalJson.canonicalize(rfc8785Section322Input("333333333.33333329")))
                .isEqualTo(RFC_OUTPUT.replace("333333333.3333333", "333333333.33333329"));
    }

    @Test
    void rfc8785Section323SortsByUtf16CodeUnits() {
        String input = "{\"\\u20ac\":\"Euro Sign\",\"\\r\":\"Carriage Return\",\"\\ufb33\":\"Hebrew Letter Dalet With Dagesh\","
                + "\"1\":\"One\",\"\\ud83d\\ude00\":\"Emoji: Grinning Face\",\"\\u0080\":\"Control\","
                + "\"\\u00f6\":\"Latin Small Letter O With Diaeresis\"}";
        String expected = "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\","
                + "\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\","
                + "\"\ud83d\ude00\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}";
        assertThat(CanonicalJson.canonicalize(input)).isEqualTo(expected);
        assertThat(CanonicalJson.canonicalize(input.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(expected.getBytes(StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "1|1", "1.0|1", "1e0|1", "10E-1|1", "0.1e1|1", "-0|0", "-0.0|0", "0e10|0", "100|100",
            "1e2|100", "1.5|1.5", "150e-2|1.5", "4.50|4.5", "2e-3|0.002", "1E30|1e+30",
            "0.000001|0.000001", "1e-7|1e-7", "123456789012345678901|123456789012345680000",
            "1e21|1e+21", "12345678901234567890123|1.2345678901234567890123e+22",
            "9007199254740993|9007199254740993", "9007199254740993.0|9007199254740993",
            "1.000000000000000001|1.000000000000000001", "1000000000000000000.1e-18|1.0000000000000000001",
            "0.1000000000000000000001|0.1000000000000000000001", "9007199254740993.5|9007199254740993.5",
            "1234.567890123456789012|1234.567890123456789012", "1e-400|1e-400", "-1.5E400|-1.5e+400",
            "0.00000123|0.00000123", "0.000000123|1.23e-7", "123456789012345678901.5|123456789012345678901.5",
            "12.340e1|123.4",
            "-9007199254740993|-9007199254740993", "18446744073709551616|18446744073709551616",
            "0.30000000000000004|0.30000000000000004", "1.7976931348623157e308|1.7976931348623157e+308",
            "5e-324|5e-324", "-1.5e-7|-1.5e-7"})
    void numbersFollowEs6WithExactIntegers(String in, String out) {
        if ("123456789012345678901".equals(in)) {
            // An integer is exact: all 21 digits survive.
            out = "123456789012345678901";
        }
        assertThat(CanonicalJson.canonicalize("[" + in + "]")).isEqualTo("[" + out + "]");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "1.000000000000000001|1", "1234.567890123456789012|1234.567890123456789013",
            "0.1|0.1000000000000000000001", "9007199254740993.5|9007199254740994",
            "333333333.33333329|333333333.3333333", "1e-400|0", "5e-324|4.9e-324", "0.3|0.30000000000000000001"})
    void numbersThatShareANearestDoubleStayDistinct(String a, String b) {
        assertThat(Double.parseDouble(a)).as("the premise: one double").isEqualTo(Double.parseDouble(b));
        assertThat(CanonicalJson.canonicalize("{\"amount\": " + a + "}"))
                .isNotEqualTo(CanonicalJson.canonicalize("{\"amount\": " + b + "}"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"1|1.0|1e0|10E-1", "0.1|1e-1|100E-3|0.10", "-2.5|-25e-1|-0.25E1|-2.50",
            "1.000000000000000001|1000000000000000001e-18|0.1000000000000000001e1|1.0000000000000000010"})
    void equalValuesHaveOneCanonicalText(String a, String b, String c, String d) {
        String expected = CanonicalJson.canonicalize("[" + a + "]");
        for (String spelling : List.of(b, c, d)) {
            assertThat(CanonicalJson.canonicalize("[" + spelling + "]")).as(spelling).isEqualTo(expected);
        }
    }

    @Test
    void integersBeyondDoublePrecisionDoNotCollideWithTheirRoundedNeighbours() {
        assertThat(CanonicalJson.canonicalize("{\"amount\": 9007199254740993}"))
                .isNotEqualTo(CanonicalJson.canonicalize("{\"amount\": 9007199254740992}"));
    }

    @Test
    void stringEscapingIsMinimal() {
        assertThat(CanonicalJson.canonicalize("\"\\u0001\\u001f\\b\\f\\n\\r\\t\\u007f\\/\\u00e9\""))
                .isEqualTo("\"\\u0001\\u001f\\b\\f\\n\\r\\t\u007f/\u00e9\"");
    }

    @Test
    void whitespaceAndNestingAreNormalised() {
        assertThat(CanonicalJson.canonicalize(" { \"b\" : [ 1 , { \"d\":1, \"c\":2 } ] , \"a\" : { } } "))
                .isEqualTo("{\"a\":{},\"b\":[1,{\"c\":2,\"d\":1}]}");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"a\":1,\"a\":2}", "{\"a\":1", "[1,]", "{'a':1}", "NaN", "[Infinity]", "[-Infinity]", "[01]",
            "\"\\ud800\"", "\"\\udc00x\"", "{\"\\ud800\":1}", "[1] [2]", "{} x", "", "   ", "[1e999999999999]",
            "/* c */ 1", "[\"a\u0001\"]", "tru", "[1.]", "[.5]", "[+1]", "{\"a\":{\"b\":1,\"b\":1}}"})
    void malformedJsonIsABadRequest(String json) {
        assertThatThrownBy(() -> CanonicalJson.canonicalize(json))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(400);
                    assertThat(e.tooLarge()).isFalse();
                })
                .hasMessageContaining("request JSON");
    }

    @Test
    void textBeyondAParserLimitIsTooLarge() {
        for (String json : List.of("[".repeat(1001) + "]".repeat(1001), "[" + "1".repeat(1001) + "]")) {
            assertThatThrownBy(() -> CanonicalJson.canonicalize(json))
                    .isInstanceOfSatisfying(InvalidRequestException.class,
                            e -> assertThat(e.httpStatus()).isEqualTo(413))
                    .hasMessageContaining("parser limit");
        }
        String deepest = "[".repeat(1000) + "]".repeat(1000);
        assertThat(CanonicalJson.canonicalize(deepest)).isEqualTo(deepest);
    }

    @Test
    void invalidUtf8BytesAreRejected() {
        byte[] bad = {'"', (byte) 0xC3, (byte) 0x28, '"'};
        assertThatThrownBy(() -> CanonicalJson.canonicalize(bad)).isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void numbersBeyondTheRangeOfADoubleAreKeptExactly() {
        String huge = "1" + "0".repeat(400) + ".5";
        assertThat(CanonicalJson.canonicalize("[" + huge + "]")).isEqualTo("[1." + "0".repeat(400) + "5e+400]");
        assertThat(CanonicalJson.canonicalize("[1e999999999]")).isEqualTo("[1e+999999999]");
        assertThatThrownBy(() -> CanonicalJson.canonicalize("[1e1000000000]"))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("exponent out of range");
    }

    @Test
    void excludedPointersAreLeftOut() {
        byte[] json = "{\"amount\":1,\"meta\":{\"trace\":\"x\",\"keep\":1},\"items\":[{\"ts\":1,\"a\":2},3],\"a/b\":1,\"m~n\":2}"
                .getBytes(StandardCharsets.UTF_8);
        byte[] out = CanonicalJson.canonicalize(json, List.of("/meta/trace", "/items/0/ts", "/items/1", "/a~1b", "/m~0n",
                "/absent/deep"));
        assertThat(new String(out, StandardCharsets.UTF_8))
                .isEqualTo("{\"amount\":1,\"items\":[{\"a\":2}],\"meta\":{\"keep\":1}}");
    }

    @Test
    void malformedPointersAreRejected() {
        byte[] json = "{}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> CanonicalJson.canonicalize(json, List.of("meta")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'/'");
        assertThatThrownBy(() -> CanonicalJson.canonicalize(json, List.of("/a~2")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("escape");
    }

    @Test
    void deeplyNestedInputHitsTheParserLimitNotTheStack() {
        String deep = "[".repeat(5000) + "]".repeat(5000);
        assertThatThrownBy(() -> CanonicalJson.canonicalize(deep)).isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void theDigestsHashTheCanonicalTextWhateverTheSpelling() throws NoSuchAlgorithmException {
        String spelled = "{ \"b\" : 1.0, \"a\" : [ 1e0, \"\\u0041\" ] }";
        byte[] canonical = CanonicalJson.canonicalizeToUtf8(spelled);
        assertThat(new String(canonical, StandardCharsets.UTF_8)).isEqualTo("{\"a\":[1,\"A\"],\"b\":1}");
        byte[] expected = MessageDigest.getInstance("SHA-256").digest(canonical);
        byte[] utf8 = spelled.getBytes(StandardCharsets.UTF_8);

        assertThat(CanonicalJson.sha256(spelled)).isEqualTo(expected);
        assertThat(CanonicalJson.sha256(utf8)).isEqualTo(expected);
        // The per-thread digest is reset between calls: the same text hashes the same again.
        assertThat(CanonicalJson.sha256(spelled)).isEqualTo(expected);
        assertThat(CanonicalJson.sha256(utf8)).isEqualTo(expected);

        MessageDigest fromText = MessageDigest.getInstance("SHA-512");
        CanonicalJson.digest(spelled, fromText);
        MessageDigest fromBytes = MessageDigest.getInstance("SHA-512");
        CanonicalJson.digest(utf8, fromBytes);
        byte[] expected512 = MessageDigest.getInstance("SHA-512").digest(canonical);
        assertThat(fromText.digest()).isEqualTo(expected512);
        assertThat(fromBytes.digest()).isEqualTo(expected512);
        assertThatThrownBy(() -> CanonicalJson.digest(spelled, null)).isInstanceOf(NullPointerException.class);
    }
}
