package dev.idem.engine.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.InvalidRequestException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Whole documents at the canonicalizer's edges, checked byte for byte or by the exact message
 * a caller gets: every truncation of a document (given as an array that ends where the text
 * does), member order by UTF-16 code units over names mixing escapes, supplementary
 * characters and shared prefixes (against {@code String.compareTo}, which is that order),
 * duplicate names wherever they stand, the name length limit, byte order marks and UTF-16 and
 * UTF-32 input, numbers whose canonical form is longer than their literal, nesting that must
 * be rewritten at every level, and a digest that canonicalizes again while it is being fed.
 */
class CanonicalDocumentEdgesTest {

    private static String canonical(String json) {
        return new String(JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY), StandardCharsets.UTF_8);
    }

    private static String canonical(byte[] json) {
        return new String(JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY), StandardCharsets.UTF_8);
    }

    private static String message(String json) {
        InvalidRequestException fromText = refusal(() -> JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY));
        InvalidRequestException fromBytes =
                refusal(() -> JsonCanonicalizer.canonicalize(json.getBytes(StandardCharsets.UTF_8), PointerSet.EMPTY));
        assertThat(fromBytes.getMessage()).isEqualTo(fromText.getMessage());
        return fromText.getMessage();
    }

    private static InvalidRequestException refusal(Runnable call) {
        try {
            call.run();
        } catch (InvalidRequestException e) {
            return e;
        }
        throw new AssertionError("accepted");
    }

    @Test
    void everyTruncationOfADocumentIsRefusedAsMalformedJson() {
        String json = " {\"a\\u00e9\\ud83d\\ude00\\n\\\"\":[true,false,null,-0.5e-7,12,1E+2,\"x\u20ac\ud83d\ude00\u00e9\"],"
                + "\"b\":{\"c\":[],\"d\":{}},\"\":\"\\/\\b\\f\\r\\t\\u0041\"} ";
        byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
        String whole = canonical(utf8);
        assertThat(whole).isEqualTo("{\"\":\"/\\b\\f\\r\\tA\",\"a\u00e9\ud83d\ude00\\n\\\"\":[true,false,null,-5e-8,12,100,"
                + "\"x\u20ac\ud83d\ude00\u00e9\"],\"b\":{\"c\":[],\"d\":{}}}");
        for (int n = 0; n < utf8.length - 1; n++) {
            byte[] prefix = Arrays.copyOf(utf8, n);
            assertThatThrownBy(() -> JsonCanonicalizer.canonicalize(prefix, PointerSet.EMPTY)).as("%d bytes", n)
                    .isInstanceOf(InvalidRequestException.class).hasMessageMatching(n <= 1 ? "request JSON is empty"
                            : "(malformed request JSON: |request JSON has a lone surrogate ).*");
        }
        for (String tail : List.of("tru", "fals", "nul", "-", "1.", "1e", "1e+", "\"\\u12", "\"\\u", "\"\\", "\"\\ud83d",
                "\"\\ud83d\\", "\"\\ud83d\\ude0", "{\"a\"", "{\"a\":", "{\"a\" ", "[1,", "{", "[")) {
            byte[] text = tail.getBytes(StandardCharsets.UTF_8);
            assertThatThrownBy(() -> JsonCanonicalizer.canonicalize(text, PointerSet.EMPTY)).as(tail)
                    .isInstanceOf(InvalidRequestException.class)
                    .hasMessageMatching("(malformed request JSON: |request JSON has a lone surrogate ).*");
        }
    }

    @Test
    void malformedDocumentsAreRefusedWithWhatAndWhere() {
        assertThat(message("  ")).isEqualTo("request JSON is empty");
        assertThat(message("[1 2]")).isEqualTo("malformed request JSON: expected ',' or ']' at byte 3");
        assertThat(message("{\"a\":1]")).isEqualTo("malformed request JSON: expected ',' or '}' at byte 6");
        assertThat(message("[1,")).isEqualTo("malformed request JSON: unexpected end of input at byte 3");
        assertThat(message("[@]")).isEqualTo("malformed request JSON: unexpected character '@' at byte 1");
        assertThat(message("[~]")).isEqualTo("malformed request JSON: unexpected character '~' at byte 1");
        assertThat(message("[\u007f]")).isEqualTo("malformed request JSON: unexpected character 0x7f at byte 1");
        assertThat(message("[\u00e9]")).isEqualTo("malformed request JSON: unexpected character 0xc3 at byte 1");
        assertThat(message("[\u001f]")).isEqualTo("malformed request JSON: unexpected character 0x1f at byte 1");
        assertThat(message("[\"\u0000\"]"))
                .isEqualTo("malformed request JSON: unescaped control character 0x00 in a string at byte 2");
        assertThat(message("[\"abcdefghijk\u0001lmnopqrstuvw\"]"))
                .isEqualTo("malformed request JSON: unescaped control character 0x01 in a string at byte 13");
        // Letters from 0x60 up already stop the eight-byte check by their high bits: these do not.
        assertThat(message("[\"ABCDEFGHIJK\u0001LMNOPQRSTUVW\"]"))
                .isEqualTo("malformed request JSON: unescaped control character 0x01 in a string at byte 13");
        assertThat(message("[\"abcdefghijklmnopq\tr\"]"))
                .isEqualTo("malformed request JSON: unescaped control character 0x09 in a string at byte 19");
        assertThat(message("\"\\u0041")).isEqualTo("malformed request JSON: unterminated string at byte 7");
        assertThat(message("\"\\ud83d\\ude00")).isEqualTo("malformed request JSON: unterminated string at byte 13");
        assertThat(message("\"\\u004")).isEqualTo("malformed request JSON: unterminated string at byte 3");
        assertThat(message("[\"\\ud83d\\u0041\"]")).isEqualTo("request JSON has a lone surrogate at index 0 of a string");
        assertThat(message("[" + "9".repeat(1001) + "]"))
                .isEqualTo("request JSON exceeds a parser limit: number of 1001 digits; the maximum is 1000");
        assertThat(message("[1." + "9".repeat(990) + "e" + "1".repeat(10) + "]"))
                .isEqualTo("request JSON exceeds a parser limit: number of 1001 digits; the maximum is 1000");
    }

    @Test
    void aMemberNameMayHaveFiftyThousandBytesAndNoMore() {
        String name = "\u00e9".repeat(24_999) + "ab";
        assertThat(canonical("{\"" + name + "\":1}")).isEqualTo("{\"" + name + "\":1}");
        String longer = name + "c";
        assertThat(message("{\"" + longer + "\":1}"))
                .isEqualTo("request JSON exceeds a parser limit: member name of 50001 bytes; the maximum is 50000");
        // A string value of that length is no name.
        assertThat(canonical("[\"" + longer + "\"]")).isEqualTo("[\"" + longer + "\"]");
    }

    @Test
    void membersAreOrderedByUtf16CodeUnitsHoweverTheirNamesAreWritten() {
        // Escapes, supplementary characters, characters above the surrogates, shared prefixes of
        // eight and sixteen bytes, a 'u' before an escape: the cases where bytes and code units differ.
        List<String> alphabet = List.of("a", "b", "u", "~", "A", "\u0001", "\n", "\"", "\\", "\u007f", "\u0080", "\u00e9",
                "\u07ff", "\u0800", "\u0fff", "\u1000", "\ud7ff", "\ue000", "\uffff", "\ud83d\ude00", "\udbff\udfff",
                "abcdefgh", "abcdefghijklmnop");
        Random random = new Random(8785_3);
        for (int round = 0; round < 1500; round++) {
            TreeMap<String, Integer> members = new TreeMap<>();
            int size = 1 + random.nextInt(round % 3 == 0 ? 40 : 8);
            String shared = random.nextInt(3) == 0 ? alphabet.get(random.nextInt(alphabet.size())) : "";
            while (members.size() < size) {
                StringBuilder name = new StringBuilder(shared);
                for (int i = random.nextInt(4); i > 0; i--) {
                    name.append(alphabet.get(random.nextInt(alphabet.size())));
                }
                members.putIfAbsent(name.toString(), members.size());
            }
            List<String> names = new ArrayList<>(members.keySet());
            Collections.shuffle(names, random);
            StringBuilder json = new StringBuilder("{");
            for (String name : names) {
                json.append(json.length() > 1 ? "," : "").append(render(name, random)).append(':').append(members.get(name));
            }
            String input = json.append('}').toString();
            StringBuilder expected = new StringBuilder("{");
            for (Map.Entry<String, Integer> e : members.entrySet()) {
                expected.append(expected.length() > 1 ? "," : "").append(quote(e.getKey())).append(':').append(e.getValue());
            }
            String wanted = expected.append('}').toString();
            assertThat(canonical(input)).as(input).isEqualTo(wanted);
            assertThat(canonical(input.getBytes(StandardCharsets.UTF_8))).as(input).isEqualTo(wanted);
            // The same name twice, wherever the second stands, is refused.
            String twice = names.get(random.nextInt(names.size()));
            String duplicated = input.substring(0, input.length() - 1) + "," + render(twice, random) + ":0}";
            assertThatThrownBy(() -> JsonCanonicalizer.canonicalize(duplicated, PointerSet.EMPTY)).as(duplicated)
                    .isInstanceOf(InvalidRequestException.class)
                    .hasMessageStartingWith("malformed request JSON: duplicate member name ");
        }
    }

    // The name as JSON, each character at random raw (where JSON allows) or as \\u escapes.
    private static String render(String name, Random random) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isHighSurrogate(c)) {
                char low = name.charAt(++i);
                sb.append(random.nextBoolean() ? "" + c + low : String.format("\\u%04x\\u%04x", (int) c, (int) low));
            } else if (c >= 0x20 && c != '"' && c != '\\' && random.nextBoolean()) {
                sb.append(c);
            } else if (c == '\n' && random.nextBoolean()) {
                sb.append("\\n");
            } else {
                sb.append(String.format("\\u%04x", (int) c));
            }
        }
        return sb.append('"').toString();
    }

    // RFC 8785 section 3.2.2.2: the short escapes, \\u00xx for other controls, the rest as is.
    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
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
        return sb.append('"').toString();
    }

    @Test
    void duplicatesAreRefusedWhereverTheyStandAndLongNamesAreCutInTheMessage() {
        for (int size : new int[] {2, 3, 5, 16, 17, 40}) {
            for (int first = 0; first < size; first++) {
                for (int second = first + 1; second <= size; second += Math.max(1, size / 5)) {
                    List<String> names = new ArrayList<>();
                    for (int i = 0; i < size; i++) {
                        names.add("k" + (char) ('z' - i % 26) + i);
                    }
                    names.add(second, names.get(first));
                    StringBuilder json = new StringBuilder("{");
                    for (String name : names) {
                        json.append(json.length() > 1 ? "," : "").append('"').append(name).append("\":[1]");
                    }
                    String input = json.append('}').toString();
                    assertThat(message(input)).as(input)
                            .isEqualTo("malformed request JSON: duplicate member name \"" + names.get(first) + "\"");
                }
            }
        }
        String name62 = "n".repeat(62);
        assertThat(message("{\"" + name62 + "\":1,\"a\":2,\"" + name62 + "\":3}"))
                .isEqualTo("malformed request JSON: duplicate member name \"" + name62 + "\"");
        String name63 = "n".repeat(63);
        assertThat(message("{\"" + name63 + "\":1,\"a\":2,\"" + name63 + "\":3}"))
                .isEqualTo("malformed request JSON: duplicate member name \"" + name63 + "...");
        assertThat(message("{\"abcdefgh\":1,\"abcdefghi\":2,\"abcdefgh\":3}"))
                .isEqualTo("malformed request JSON: duplicate member name \"abcdefgh\"");
    }

    @Test
    void byteOrderMarksAndWideEncodingsGiveTheSameCanonicalBytes() {
        String json = "{\"b\":\"\u00e9\ud83d\ude00\",\"a\":[1.50,2]}";
        String expected = "{\"a\":[1.5,2],\"b\":\"\u00e9\ud83d\ude00\"}";
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
        assertThat(canonical(concat(bom, json.getBytes(StandardCharsets.UTF_8)))).isEqualTo(expected);
        assertThat(canonical(concat(bom, new byte[] {'7'}))).isEqualTo("7");
        assertThatThrownBy(() -> JsonCanonicalizer.canonicalize(bom, PointerSet.EMPTY))
                .isInstanceOf(InvalidRequestException.class).hasMessage("request JSON is empty");
        for (String charset : List.of("UTF-16BE", "UTF-16LE", "UTF-32BE", "UTF-32LE")) {
            Charset cs = Charset.forName(charset);
            byte[] mark = "\uFEFF".getBytes(cs);
            for (String doc : List.of(json, "7", "12", "[]")) {
                String want = doc.equals(json) ? expected : doc;
                assertThat(canonical(doc.getBytes(cs))).as(charset + " " + doc).isEqualTo(want);
                assertThat(canonical(concat(mark, doc.getBytes(cs)))).as(charset + " with a mark " + doc).isEqualTo(want);
            }
        }
        byte[] brokenUtf16 = {0, '[', (byte) 0xD8, 0, 0, ']'};
        assertThatThrownBy(() -> JsonCanonicalizer.canonicalize(brokenUtf16, PointerSet.EMPTY))
                .isInstanceOf(InvalidRequestException.class).hasMessage("malformed request JSON: invalid UTF-16BE text");
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    void numbersLongerThanTheirLiteralsLeaveRoomForWhatFollows() {
        // 1e20 is 21 digits canonically, 1e-6 is 0.000001: the output outgrows the input.
        for (int count : new int[] {1, 7, 64, 300}) {
            for (String tail : List.of("\"" + "x".repeat(40) + "\"", "\"" + "\u20ac".repeat(30) + "\\u0001\"",
                    "{\"b\":1,\"a\":\"" + "y".repeat(50) + "\"}", "-1.5e-7", "true")) {
                String input = "[" + "1e20,1e-6,".repeat(count) + tail + "]";
                String canonicalTail = tail.equals("-1.5e-7") ? "-1.5e-7"
                        : tail.startsWith("{") ? "{\"a\":\"" + "y".repeat(50) + "\",\"b\":1}" : tail;
                String expected = "[" + "100000000000000000000,0.000001,".repeat(count) + canonicalTail + "]";
                runOnAFreshThread(() -> {
                    assertThat(canonical(input)).isEqualTo(expected);
                    assertThat(canonical(input.getBytes(StandardCharsets.UTF_8))).isEqualTo(expected);
                });
            }
        }
    }

    @Test
    void deepDocumentsWhoseObjectsAllNeedReorderingComeOutSorted() {
        for (int depth : new int[] {1, 2, 15, 16, 17, 40, 200}) {
            String input = "{\"z\":[1,{\"y\":0,\"x\":1}],\"b\":".repeat(depth) + "{\"d\":[],\"c\":{}}" + "}".repeat(depth);
            String expected = "{\"b\":".repeat(depth) + "{\"c\":{},\"d\":[]}" + ",\"z\":[1,{\"x\":1,\"y\":0}]}".repeat(depth);
            runOnAFreshThread(() -> {
                assertThat(canonical(input)).isEqualTo(expected);
                assertThat(canonical(input.getBytes(StandardCharsets.UTF_8))).isEqualTo(expected);
            });
        }
    }

    // A thread's first canonicalization starts from the smallest buffers.
    private static void runOnAFreshThread(Runnable check) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                check.run();
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        thread.start();
        try {
            thread.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        assertThat(thread.isAlive()).isFalse();
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    @Test
    void aDigestThatCanonicalizesWhileItIsFedStillGetsTheCanonicalBytes() {
        // Neither has a container inside its object, so each is sorted where it was parsed, and
        // the inner one is the shorter: were they to share a buffer, the outer bytes would be lost.
        String outer = "{\"b\":2,\"a\":\"" + "o".repeat(100) + "\"}";
        String inner = "{\"y\":\"" + "i".repeat(30) + "\",\"x\":0}";
        StringBuilder seenInside = new StringBuilder();
        Capturing digest = new Capturing(() -> seenInside.append(canonical(inner)));
        JsonCanonicalizer.digest(outer, PointerSet.EMPTY, digest);
        JsonCanonicalizer.digest(outer.getBytes(StandardCharsets.UTF_8), PointerSet.EMPTY, digest);
        String expected = "{\"a\":\"" + "o".repeat(100) + "\",\"b\":2}";
        assertThat(new String(digest.engineDigest(), StandardCharsets.UTF_8)).isEqualTo(expected + expected);
        assertThat(seenInside.toString()).isEqualTo(("{\"x\":0,\"y\":\"" + "i".repeat(30) + "\"}").repeat(2));
    }

    /** A digest that keeps what it is fed, running {@code during} before it reads its input. */
    private static final class Capturing extends MessageDigest {
        private final Runnable during;
        private final java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();

        Capturing(Runnable during) {
            super("capturing");
            this.during = during;
        }

        @Override
        protected void engineUpdate(byte input) {
            seen.write(input);
        }

        @Override
        protected void engineUpdate(byte[] input, int offset, int len) {
            during.run();
            seen.write(input, offset, len);
        }

        @Override
        protected byte[] engineDigest() {
            return seen.toByteArray();
        }

        @Override
        protected void engineReset() {
            seen.reset();
        }
    }
}
