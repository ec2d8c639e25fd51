package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.idem.api.InvalidRequestException;
import dev.idem.engine.internal.json.Jackson2JsonCodec;
import dev.idem.engine.internal.json.JsonCanonicalizer;
import dev.idem.engine.internal.json.PointerSet;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pins the fingerprint format. Every stored record holds a fingerprint; if this format
 * changes, every key in flight during an upgrade is answered 422 (key reused with another
 * request). The expected digests were computed outside Java, as SHA-256 over
 * {@code "idem-fingerprint/v1\0" + operation + "\0" + tag + canonical text}, tag {@code J} for
 * JSON and {@code B} for raw bytes. A failure here is a breaking change: version the domain
 * tag instead of editing a vector.
 */
class FingerprintFormatTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final Fingerprinter fingerprinter = new Fingerprinter(MAPPER, 1 << 20, PointerSet.EMPTY);

    private String hex(String operation, Object request) {
        return HexFormat.of().formatHex(fingerprinter.fingerprint(operation, request, PointerSet.EMPTY));
    }

    private static void canonicalIs(String json, String canonical) {
        assertThat(new String(JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY), StandardCharsets.UTF_8))
                .isEqualTo(canonical);
    }

    @Test
    void anOrderWithANestedCustomer() {
        String json = "{ \"customer\": {\"name\": \"Zo\\u00eb\", \"id\": \"c_42\"},\n \"currency\": \"EUR\", \"amount\": 1050.0 }";
        canonicalIs(json, "{\"amount\":1050,\"currency\":\"EUR\",\"customer\":{\"id\":\"c_42\",\"name\":\"Zo\u00eb\"}}");
        assertThat(hex("charge", json)).isEqualTo("2ad922f7eb23c65ae6ead316899ec75781a97a0b5454469795723364439bb75b");
    }

    @Test
    void numbersInEveryLayout() {
        String json = "[1.0, 1e0, 10E-1, 1E-1, 1.0000000000000000010, 9007199254740993, 1e30, -0.0, 5e-324,"
                + " 333333333.33333329, 0.0000001, 1e-6, -15e-1, 123456789012345678901,"
                + " 12345678901234567e6]";
        canonicalIs(json, "[1,1,1,0.1,1.000000000000000001,9007199254740993,1e+30,0,5e-324,333333333.33333329,"
                + "1e-7,0.000001,-1.5,123456789012345678901,1.2345678901234567e+22]");
        assertThat(hex("charge", json)).isEqualTo("aba632d847ccb02076daad7d3f591887627bb1bad89c5d460af04589550615fd");
    }

    @Test
    void escapesAndMemberOrderByUtf16CodeUnits() {
        String json = "{\"\\ufb33\":3,\"\\ud83d\\ude00\":2,\"\\u20AC\":1,\"\\u00f6\":\"\\u20ac\",\"1\":[true, false, null, { }],"
                + "\"\\r\":\"\\u0000\\t\\\"\\\\\\/\\uD83D\\uDE00\"}";
        canonicalIs(json, "{\"\\r\":\"\\u0000\\t\\\"\\\\/\ud83d\ude00\",\"1\":[true,false,null,{}],\"\u00f6\":\"\u20ac\","
                + "\"\u20ac\":1,\"\ud83d\ude00\":2,\"\ufb33\":3}");
        assertThat(hex("refund", json)).isEqualTo("661f0223d316dcd2dcd8e968bde44a681da0f89eb4fbf54f6d2205e9b01498a0");
    }

    @Test
    void aMapRequestFingerprintsLikeItsJsonText() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("b", 2.5);
        map.put("a", List.of(1, 2L, new BigDecimal("1.10")));
        String expected = "ab574ec3dfaf655f0620726457da2032f0444289a6205438f33260689caa1a8b";
        assertThat(hex("charge", map)).isEqualTo(expected);
        assertThat(hex("charge", "{\"a\":[1,2,1.1],\"b\":2.5}")).isEqualTo(expected);
    }

    @Test
    void excludedMembersAreLeftOutBeforeHashing() {
        Fingerprinter excluding = new Fingerprinter(MAPPER, 1 << 20, PointerSet.of(List.of("/meta/trace")));
        byte[] fp = excluding.fingerprint("charge", "{\"meta\":{\"trace\":\"t-1\"},\"amount\":1}", PointerSet.EMPTY);
        assertThat(HexFormat.of().formatHex(fp))
                .isEqualTo("0a53efe5e91bd3b2ae6d45556289fe8818440d5aae296b8324840652cc631fec");
    }

    @Test
    void rawBytesAreHashedAsTheyAre() {
        assertThat(hex("upload", "raw\0bytes".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("559d0f4ee261a03df0fa2f8982685bb258abe69b9b6cb56e5f2ac5920bcc3c59");
    }

    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void nonFiniteNumbersInObjectRequestsAreBadRequestsLikeInText(double bad) {
        InvalidRequestException inText = catchInvalid(() -> hex("charge", "{\"amount\": NaN}"));
        assertThat(inText.httpStatus()).isEqualTo(400);

        ObjectNode node = JsonNodeFactory.instance.objectNode().put("amount", bad);
        for (Object request : List.of(Map.of("amount", bad), new Amount(bad), node, List.of(List.of(bad)),
                Map.of("amounts", new double[] {1.5, bad}), Map.of("amount", (float) bad))) {
            InvalidRequestException e = catchInvalid(() -> hex("charge", request));
            assertThat(e.httpStatus()).as("%s", request).isEqualTo(400);
            assertThat(e.getMessage()).as("%s", request).startsWith("malformed request JSON").contains("non-finite");
        }
        // Jackson's default would have written the string "NaN": that request stays valid and distinct.
        assertThat(hex("charge", Map.of("amount", "NaN"))).isEqualTo(hex("charge", "{\"amount\":\"NaN\"}"));
    }

    /** A POJO with a double, as a user's request type would be. */
    public static final class Amount {
        private final double amount;

        Amount(double amount) {
            this.amount = amount;
        }

        /** @return the amount */
        public double getAmount() {
            return amount;
        }
    }

    @Test
    void doublesInObjectRequestsFingerprintLikeTheirShortestText() {
        // JDK 17 prints 2.0E23 as 2.0000000000000002E23 and Jackson prints Double.MIN_VALUE as 4.9E-324.
        for (double d : new double[] {2e23, Double.MIN_VALUE, 0.1, 1e21, 1e-7, 100, -0.0, 333333333.3333333}) {
            String shortest = Jackson2JsonCodec.shortestDecimal(d);
            assertThat(hex("op", List.of(d))).as("%s", d).isEqualTo(hex("op", "[" + shortest + "]"));
            assertThat(hex("op", new double[] {d})).as("%s", d).isEqualTo(hex("op", "[" + shortest + "]"));
        }
    }

    @Test
    void theSizeLimitCountsUtf8BytesOfAStringRequest() {
        Fingerprinter small = new Fingerprinter(MAPPER, 10, PointerSet.EMPTY);
        // 6 UTF-16 units, 10 UTF-8 bytes: at the limit.
        small.fingerprint("op", "\"\u00e9\u00e9\u00e9\u00e9\"", PointerSet.EMPTY);
        small.fingerprint("op", "\"\ud83d\ude00\ud83d\ude00\"", PointerSet.EMPTY);
        for (String over : List.of("\"\u00e9\u00e9\u00e9\u00e9\u00e9\"", "\"\u20ac\u20ac\u20ac\"", "\"\ud83d\ude00\ud83d\ude00x\"")) {
            assertThat(over.length()).isLessThanOrEqualTo(10);
            int bytes = over.getBytes(StandardCharsets.UTF_8).length;
            assertThatThrownBy(() -> small.fingerprint("op", over, PointerSet.EMPTY))
                    .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.httpStatus()).isEqualTo(413))
                    .hasMessageContaining("request is " + bytes + " bytes; the limit is 10");
        }
        assertThat(Fingerprinter.utf8Length("a\u00e9\u20ac\ud83d\ude00")).isEqualTo(1 + 2 + 3 + 4);
    }

    private static InvalidRequestException catchInvalid(Runnable r) {
        try {
            r.run();
        } catch (InvalidRequestException e) {
            return e;
        }
        throw new AssertionError("expected an InvalidRequestException");
    }
}
