package dev.idem.engine.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The work buffer's writers make their own room: a decimal written into a full buffer, and a
 * string body whose escapes (six bytes for one character) use up the room its other
 * characters were given, written from a fresh, small buffer and checked against the RFC 8785
 * escaping rules.
 */
class ByteSinkTest {

    @Test
    void aDecimalFitsWhateverTheBufferHoldsAlready() {
        for (long value : new long[] {0, 7, 10, 99, 12345, 999_999_999, Long.MAX_VALUE}) {
            for (int filled = 0; filled <= 20; filled++) {
                ByteSink sink = new ByteSink(16);
                for (int i = 0; i < filled; i++) {
                    sink.write('x');
                }
                sink.writeDecimal(value);
                assertThat(new String(sink.toByteArray(), StandardCharsets.US_ASCII)).isEqualTo("x".repeat(filled) + value);
            }
        }
    }

    @Test
    void stringBodiesWithEscapesAnywhereFitAFreshBuffer() {
        List<String> units = List.of("\u20ac", "\u0001", "a", "\ud83d\ude00", "\u00e9", "\"", "\n", "\u07ff", "\u0800");
        Random random = new Random(3222);
        for (int round = 0; round < 3000; round++) {
            StringBuilder text = new StringBuilder();
            int kind = random.nextInt(units.size());
            for (int i = random.nextInt(120); i > 0; i--) {
                text.append(units.get(random.nextInt(4) == 0 ? random.nextInt(units.size()) : kind));
            }
            String s = text.toString();
            ByteSink sink = new ByteSink(0);
            assertThat(sink.writeJsonStringBody(s.toCharArray(), 0, s.length())).isEqualTo(-1);
            assertThat(new String(sink.toByteArray(), StandardCharsets.UTF_8)).as(s).isEqualTo(escaped(s));
        }
        for (int n = 1; n < 40; n++) {
            for (String s : List.of("\u20ac".repeat(n) + "\u0001", "\u20ac".repeat(n) + "\u0001\u20ac",
                    "\u20ac".repeat(n) + "\u0001\u0001\u20ac\u20ac", "\u20ac".repeat(n) + "\ud83d\ude00\u0001")) {
                ByteSink sink = new ByteSink(0);
                assertThat(sink.writeJsonStringBody(s.toCharArray(), 0, s.length())).isEqualTo(-1);
                assertThat(new String(sink.toByteArray(), StandardCharsets.UTF_8)).as(s).isEqualTo(escaped(s));
            }
        }
    }

    private static String escaped(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
        }
        return sb.toString();
    }
}
