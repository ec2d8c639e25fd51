package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.InvalidRequestException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The public digests of {@link CanonicalJson} are the SHA-256 (or any digest) of exactly the
 * canonical bytes, from text and from UTF-8 alike; {@link JsonCodec#shortestDecimal} is the
 * ECMAScript form of the shortest decimal that reads back as the same double, checked against
 * a reference built from {@code BigDecimal} over every small subnormal, the powers of two and
 * seeded random doubles; numbers whose exponent has ten digits are refused with the literal,
 * cut at forty characters.
 */
class CanonicalDigestsAndDecimalsTest {

    @Test
    void digestsAreOfTheCanonicalBytes() throws Exception {
        for (String json : List.of("{\"b\":[1.50,true],\"a\":\"\\u00e9\"}", "  7 ", "[\"" + "x".repeat(500) + "\"]")) {
            byte[] canonical = CanonicalJson.canonicalizeToUtf8(json);
            byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
            byte[] expected = MessageDigest.getInstance("SHA-256").digest(canonical);
            assertThat(CanonicalJson.sha256(json)).isEqualTo(expected);
            assertThat(CanonicalJson.sha256(utf8)).isEqualTo(expected);
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            CanonicalJson.digest(json, sha1);
            assertThat(sha1.digest()).isEqualTo(MessageDigest.getInstance("SHA-1").digest(canonical));
            CanonicalJson.digest(utf8, sha1);
            assertThat(sha1.digest()).isEqualTo(MessageDigest.getInstance("SHA-1").digest(canonical));
        }
        assertThatThrownBy(() -> CanonicalJson.sha256("[1,]")).isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> CanonicalJson.sha256(new byte[] {'[', (byte) 0xC0, (byte) 0x80, ']'}))
                .isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void theJackson2CodecReadsWhatItIsPointedAt() throws Exception {
        JsonCodec codec = JsonCodec.jackson2(new ObjectMapper());
        byte[] framed = "xx{\"a\":[1,2]}yy".getBytes(StandardCharsets.UTF_8);
        assertThat(codec.readValue(framed, 2, framed.length - 4, Map.class)).isEqualTo(Map.of("a", List.of(1, 2)));
        assertThat(new String(codec.writeValue(Map.of("k", 1)), StandardCharsets.UTF_8)).isEqualTo("{\"k\":1}");
    }

    @Test
    void shortestDecimalsAreEcmaScriptsForEveryKindOfDouble() {
        for (int k = 1; k <= 3000; k++) {
            check(k * Double.MIN_VALUE);
        }
        for (int e = -1074; e <= 1023; e++) {
            double power = Math.scalb(1.0, e);
            check(power);
            check(Math.nextDown(power));
            check(Math.nextUp(power));
        }
        Random random = new Random(8785);
        for (int i = 0; i < 3000; i++) {
            double d = Double.longBitsToDouble(random.nextLong());
            if (Double.isFinite(d)) {
                check(d);
            }
        }
        for (double d : new double[] {1e21, 1e21 - 65536, 999999999999999900000.0, 1e-6, 1e-7, 9007199254740992.0,
                9007199254740993.0, 0.1, 123456789012345680000.0, 5e-324, -0.0, 0.0, Double.MAX_VALUE}) {
            check(d);
        }
        assertThat(JsonCodec.shortestDecimal(-0.0)).isEqualTo("0");
        assertThat(JsonCodec.shortestDecimal(20 * Double.MIN_VALUE)).isEqualTo("1e-322");
        assertThat(JsonCodec.shortestDecimal(1e21)).isEqualTo("1e+21");
        assertThat(JsonCodec.shortestDecimal(1e-7)).isEqualTo("1e-7");
        assertThat(JsonCodec.shortestDecimal(1e-6)).isEqualTo("0.000001");
        for (double bad : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            assertThatThrownBy(() -> JsonCodec.shortestDecimal(bad)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    private static void check(double d) {
        assertThat(JsonCodec.shortestDecimal(d)).as("%s (%x)", d, Double.doubleToRawLongBits(d)).isEqualTo(reference(d));
    }

    // The closest decimal of the fewest digits that reads back as d, laid out by ECMAScript's
    // Number::toString (ECMA-262 section 6.1.6.1.20).
    private static String reference(double d) {
        if (d == 0) {
            return "0";
        }
        BigDecimal exact = new BigDecimal(Math.abs(d));
        BigDecimal shortest = null;
        for (int p = 1; p <= 17 && shortest == null; p++) {
            BigDecimal candidate = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (candidate.doubleValue() == Math.abs(d)) {
                shortest = candidate;
            }
            // Near a power of two the interval below is half the one above: the closest of p
            // digits may miss it where the next one up does not.
            BigDecimal up = exact.round(new MathContext(p, RoundingMode.UP));
            if (shortest == null && up.doubleValue() == Math.abs(d)) {
                shortest = up;
            }
        }
        shortest = shortest.stripTrailingZeros();
        String digits = shortest.unscaledValue().toString();
        int k = digits.length();
        int n = k - shortest.scale();
        String body;
        if (k <= n && n <= 21) {
            body = digits + "0".repeat(n - k);
        } else if (0 < n && n <= 21) {
            body = digits.substring(0, n) + "." + digits.substring(n);
        } else if (-6 < n && n <= 0) {
            body = "0." + "0".repeat(-n) + digits;
        } else {
            body = digits.charAt(0) + (k > 1 ? "." + digits.substring(1) : "") + "e" + (n - 1 < 0 ? "-" : "+") + Math.abs(n - 1);
        }
        return (d < 0 ? "-" : "") + body;
    }

    @Test
    void anExponentOfTenDigitsIsRefusedWithTheLiteral() {
        String forty = "1." + "2".repeat(27) + "e1234567890";
        assertThat(forty).hasSize(40);
        for (String literal : List.of("1e1234567890", forty, forty + "1")) {
            String shown = literal.length() <= 40 ? literal : literal.substring(0, 37) + "...";
            for (String json : List.of("[" + literal + "]", "[" + "0,".repeat(30) + literal + "]")) {
                assertThatThrownBy(() -> CanonicalJson.canonicalize(json)).as(json).isInstanceOf(InvalidRequestException.class)
                        .hasMessage("request JSON number exponent out of range: " + shown);
            }
        }
    }
}
