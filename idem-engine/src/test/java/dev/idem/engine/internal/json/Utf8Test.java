package dev.idem.engine.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.InvalidRequestException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The canonicalizer's UTF-8 rules against the JDK's own codec: which byte sequences are
 * well formed (no overlong form, no surrogate, nothing beyond U+10FFFF, nothing truncated),
 * how a text request is encoded (a lone surrogate as its three-byte form, so the parser can
 * say where it stands), how long that encoding is, and the UTF-16 index a lone-surrogate
 * message names. Every encoding starts from a fresh, small buffer, so an estimate that comes
 * out short overruns it.
 */
class Utf8Test {
    private static final int[] EDGES = {0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF};

    @Test
    void aSequenceIsWellFormedExactlyWhenTheJdkDecodesItToOneCharacterAndBack() {
        for (int b0 = 0x80; b0 <= 0xFF; b0++) {
            // Every second byte after continuation bytes, and the edges of every range for the third and fourth.
            for (int b1 = 0; b1 <= 0xFF; b1++) {
                check(b0, b1, 0x80, 0x80);
            }
            for (int b1 : EDGES) {
                for (int b2 : EDGES) {
                    for (int b3 : EDGES) {
                        check(b0, b1, b2, b3);
                    }
                }
            }
        }
    }

    private static void check(int b0, int b1, int b2, int b3) {
        byte[] s = {(byte) b0, (byte) b1, (byte) b2, (byte) b3};
        for (int limit = 1; limit <= 4; limit++) {
            int expected = 0;
            for (int k = 2; k <= limit && expected == 0; k++) {
                if (roundTrips(s, k)) {
                    expected = k;
                }
            }
            if (expected == 0 && limit >= 3 && isEncodedSurrogate(s)) {
                expected = Utf8.SURROGATE;
            }
            assertThat(Utf8.sequenceLength(Arrays.copyOf(s, limit), 0, limit))
                    .as("%02x %02x %02x %02x limit %d", b0, b1, b2, b3, limit).isEqualTo(expected);
        }
    }

    // The JDK replaces what is not UTF-8 (U+FFFD), which then does not encode back to the input.
    private static boolean roundTrips(byte[] s, int k) {
        String text = new String(s, 0, k, StandardCharsets.UTF_8);
        return text.codePointCount(0, text.length()) == 1
                && Arrays.equals(text.getBytes(StandardCharsets.UTF_8), Arrays.copyOf(s, k));
    }

    private static boolean isEncodedSurrogate(byte[] s) {
        if ((s[0] & 0xF0) != 0xE0 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) {
            return false;
        }
        int unit = (s[0] & 0x0F) << 12 | (s[1] & 0x3F) << 6 | (s[2] & 0x3F);
        return Character.isSurrogate((char) unit);
    }

    @Test
    void encodingIsTheJdksWithLoneSurrogatesInTheirThreeByteFormAndItsLengthIsExact() {
        Random random = new Random(8785);
        for (int round = 0; round < 3000; round++) {
            char[] text = randomText(random, random.nextInt(round < 100 ? 8 : 200));
            int n = text.length;
            // The array goes on past n with a low surrogate: a high one at n - 1 stays lone.
            char[] chars = Arrays.copyOf(text, n + 2);
            chars[n] = '\udc00';
            chars[n + 1] = '\udc00';
            byte[] expected = reference(text, 0, n);
            ByteSink sink = new ByteSink(0);
            Utf8.encode(chars, n, sink);
            assertThat(Arrays.copyOf(sink.buf, sink.size)).as(new String(text)).isEqualTo(expected);
            int from = n == 0 ? 0 : random.nextInt(n);
            assertThat(Utf8.length(chars, from, n)).as(new String(text)).isEqualTo(reference(text, from, n).length);
            // A reused buffer with stale bytes in it gives the same.
            Utf8.encode(chars, n, sink);
            assertThat(Arrays.copyOf(sink.buf, sink.size)).isEqualTo(expected);
        }
    }

    @Test
    void longTextOfOneKindOfCharacterEncodesIntoAFreshBuffer() {
        for (String unit : List.of("a", "\u00e9", "\u20ac", "\ud83d\ude00", "\ud800", "\udfff", "\u20ac\udc00", "\u07ff")) {
            for (int count : new int[] {1, 5, 6, 17, 100, 1000}) {
                for (String prefix : List.of("", "a", "abcdefghij")) {
                    char[] chars = (prefix + unit.repeat(count)).toCharArray();
                    ByteSink sink = new ByteSink(0);
                    Utf8.encode(chars, chars.length, sink);
                    byte[] expected = reference(chars, 0, chars.length);
                    assertThat(Arrays.copyOf(sink.buf, sink.size)).isEqualTo(expected);
                    assertThat(Utf8.length(chars, 0, chars.length)).isEqualTo(expected.length);
                }
            }
        }
    }

    private static char[] randomText(Random random, int units) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < units; i++) {
            switch (random.nextInt(9)) {
                case 0, 1 -> sb.append((char) random.nextInt(0x80));
                case 2 -> sb.append((char) (0x80 + random.nextInt(0x800 - 0x80)));
                case 3 -> sb.append((char) (0x800 + random.nextInt(0xD800 - 0x800)));
                case 4 -> sb.append((char) (0xE000 + random.nextInt(0x2000)));
                case 5 -> sb.appendCodePoint(0x10000 + random.nextInt(0x100000));
                case 6 -> sb.append((char) (0xD800 + random.nextInt(0x400)));
                case 7 -> sb.append((char) (0xDC00 + random.nextInt(0x400)));
                default -> sb.append(new char[] {'\u007f', '\u0080', '\u07ff', '\u0800', '\uffff', '\ud7ff'}[random.nextInt(6)]);
            }
        }
        return sb.toString().toCharArray();
    }

    // The JDK's UTF-8 of each well-formed character; a lone surrogate as the three bytes of its code unit.
    private static byte[] reference(char[] chars, int from, int n) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = from; i < n; i++) {
            char c = chars[i];
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(chars[i + 1])) {
                out.writeBytes(new String(chars, i, 2).getBytes(StandardCharsets.UTF_8));
                i++;
            } else if (Character.isSurrogate(c)) {
                out.write(0xE0 | c >> 12);
                out.write(0x80 | (c >> 6 & 0x3F));
                out.write(0x80 | (c & 0x3F));
            } else {
                out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }

    @Test
    void aLoneSurrogateIsReportedAtItsUtf16IndexWhateverComesBeforeIt() {
        // Each piece as raw text and as its escape, with its UTF-16 length.
        String[][] pieces = {{"a", "a"}, {"\u00e9", "\\u00e9"}, {"\u20ac", "\\u20AC"}, {"\ud83d\ude00", "\\ud83d\\ude00"},
                {"\n", "\\n"}, {"\"", "\\\""}, {"/", "\\/"}, {"\u0001", "\\u0001"}, {"\u07ff", "\\u07ff"}};
        Random random = new Random(6901);
        for (int round = 0; round < 400; round++) {
            StringBuilder json = new StringBuilder("[\"");
            int units = 0;
            for (int i = random.nextInt(12); i > 0; i--) {
                String[] piece = pieces[random.nextInt(pieces.length)];
                boolean raw = random.nextBoolean() && piece[0].charAt(0) >= 0x20 && piece[0].charAt(0) != '"';
                json.append(raw ? piece[0] : piece[1]);
                units += piece[0].length();
            }
            String message = "request JSON has a lone surrogate at index " + units + " of a string";
            String escaped = json + (random.nextBoolean() ? "\\ud800" : "\\udc00x") + "\"]";
            assertThatThrownBy(() -> JsonCanonicalizer.canonicalize(escaped, PointerSet.EMPTY))
                    .isInstanceOf(InvalidRequestException.class).hasMessage(message);
            String raw = json + "\udbff\"]";
            assertThatThrownBy(() -> JsonCanonicalizer.canonicalize(raw, PointerSet.EMPTY))
                    .isInstanceOf(InvalidRequestException.class).hasMessage(message);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            bytes.writeBytes(json.toString().getBytes(StandardCharsets.UTF_8));
            bytes.writeBytes(new byte[] {(byte) 0xED, (byte) 0xB0, (byte) 0x80, '"', ']'});
            assertThatThrownBy(() -> JsonCanonicalizer.canonicalize(bytes.toByteArray(), PointerSet.EMPTY))
                    .isInstanceOf(InvalidRequestException.class).hasMessage(message);
        }
    }
}
