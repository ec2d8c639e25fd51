package dev.idem.engine.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.InvalidRequestException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The streaming canonicalizer against the one it replaced ({@link LegacyCanonicalizer}, a
 * Jackson parser and a tree of index arrays) over generated documents: the same canonical
 * bytes for every valid document, text or UTF-8, with and without exclusions, and the same
 * verdict (accepted with the same bytes, or refused with the same HTTP status) for documents
 * damaged at random.
 */
class StreamingVsLegacyProperties {

    @Provide
    Arbitrary<Object> documents() {
        return value(4);
    }

    private Arbitrary<Object> value(int depth) {
        Arbitrary<Object> leaf = Arbitraries.frequencyOf(
                Tuple.of(3, text().map(s -> (Object) s)),
                Tuple.of(3, Arbitraries.bigIntegers().between(BigInteger.TEN.pow(40).negate(), BigInteger.TEN.pow(40))
                        .flatMap(unscaled -> Arbitraries.integers().between(-30, 40)
                                .map(scale -> (Object) new BigDecimal(unscaled, scale)))),
                Tuple.of(1, Arbitraries.of(Boolean.TRUE, Boolean.FALSE).map(b -> (Object) b)),
                Tuple.of(1, Arbitraries.just((Object) null)));
        if (depth == 0) {
            return leaf;
        }
        Arbitrary<Object> child = value(depth - 1);
        return Arbitraries.frequencyOf(
                Tuple.of(2, leaf),
                Tuple.of(1, child.list().ofMaxSize(5).map(l -> (Object) l)),
                Tuple.of(2, Arbitraries.maps(name(), child).ofMaxSize(6).map(m -> (Object) new LinkedHashMap<>(m))),
                Tuple.of(1, Arbitraries.maps(name(), leaf).ofMinSize(14).ofMaxSize(60)
                        .map(m -> (Object) new LinkedHashMap<>(m))));
    }

    // Names that share prefixes and differ in the characters where UTF-8 and UTF-16 orders
    // part (U+E000..U+FFFF against supplementary characters) and where escapes sort.
    private static Arbitrary<String> name() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.strings().withChars("ab\u00e9\ufb33\ud83d\ude00\n\"\\\u0001\u007f\u20ac")
                        .ofMaxLength(4).map(s -> s.replace("\ud83d", "\ud83d\ude00").replace("\ude00\ude00", "\ude00"))
                        .filter(s -> !hasLoneSurrogate(s))),
                Tuple.of(2, text()));
    }

    private static Arbitrary<String> text() {
        Arbitrary<String> unit = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.chars().range(' ', '~').map(String::valueOf)),
                Tuple.of(1, Arbitraries.chars().range('\u0000', '\u001f').map(String::valueOf)),
                Tuple.of(1, Arbitraries.of("\"", "\\", "/", "\u007f")),
                Tuple.of(1, Arbitraries.chars().range('\u0080', '\u07ff').map(String::valueOf)),
                Tuple.of(1, Arbitraries.chars().range('\u0800', '\ud7ff').map(String::valueOf)),
                Tuple.of(1, Arbitraries.chars().range('\ue000', '\uffff').map(String::valueOf)),
                Tuple.of(1, Arbitraries.integers().between(0x10000, 0x10FFFF).map(Character::toString)));
        return unit.list().ofMaxSize(24).map(parts -> String.join("", parts));
    }

    @Property(tries = 200)
    void validDocumentsCanonicalizeToTheLegacyBytes(@ForAll("documents") Object doc, @ForAll long seed) {
        String input = render(doc, new Random(seed));
        byte[] legacy = LegacyCanonicalizer.canonicalize(input, PointerSet.EMPTY);
        assertThat(JsonCanonicalizer.canonicalize(input, PointerSet.EMPTY)).as(input).isEqualTo(legacy);
        assertThat(JsonCanonicalizer.canonicalize(input.getBytes(StandardCharsets.UTF_8), PointerSet.EMPTY))
                .as(input).isEqualTo(legacy);
    }

    @Property(tries = 200)
    void canonicalTextIsTheTextTheEarlierDecodeMade(@ForAll("documents") Object doc, @ForAll long seed) {
        String input = render(doc, new Random(seed));
        byte[] canonical = JsonCanonicalizer.canonicalize(input, PointerSet.EMPTY);
        String text = JsonCanonicalizer.canonicalText(input, PointerSet.EMPTY);
        assertThat(text).as(input).isEqualTo(decodedAsBefore(canonical));
        assertThat(text.getBytes(StandardCharsets.UTF_8)).as(input)
                .isEqualTo(LegacyCanonicalizer.canonicalize(input, PointerSet.EMPTY));
    }

    // How canonicalText made its String before ASCII text got its one-copy path: Latin-1 text
    // decoded by hand into a scratch buffer, anything beyond U+00FF by the JDK.
    private static String decodedAsBefore(byte[] b) {
        byte[] out = new byte[b.length];
        int o = 0;
        for (int i = 0; i < b.length; i++) {
            byte c = b[i];
            if (c >= 0) {
                out[o++] = c;
            } else if ((c & 0xFE) == 0xC2) {
                out[o++] = (byte) ((c & 0x03) << 6 | b[++i] & 0x3F);
            } else {
                return new String(b, StandardCharsets.UTF_8);
            }
        }
        return new String(out, 0, o, StandardCharsets.ISO_8859_1);
    }

    @Property(tries = 150)
    void exclusionsLeaveOutWhatTheLegacyLeftOut(@ForAll("documents") Object doc, @ForAll long seed) {
        Random rnd = new Random(seed);
        List<String> paths = new ArrayList<>();
        paths(doc, "", paths);
        List<String> chosen = new ArrayList<>();
        for (int i = 0; i < 3 && !paths.isEmpty(); i++) {
            chosen.add(paths.get(rnd.nextInt(paths.size())));
        }
        chosen.add("/absent/0");
        PointerSet pointers = PointerSet.of(chosen);
        String input = render(doc, rnd);
        assertThat(outcome(() -> JsonCanonicalizer.canonicalize(input, pointers))).as("%s without %s", input, chosen)
                .isEqualTo(outcome(() -> LegacyCanonicalizer.canonicalize(input, pointers)));
    }

    @Property(tries = 300)
    void damagedDocumentsGetTheLegacyVerdict(@ForAll("documents") Object doc, @ForAll long seed) {
        Random rnd = new Random(seed);
        StringBuilder damaged = new StringBuilder(render(doc, rnd));
        String debris = "{}[]:,\"\\ -+.eE0123456789tfnul\u00e9\ud83d\ude00";
        for (int edits = 1 + rnd.nextInt(3); edits > 0; edits--) {
            int at = rnd.nextInt(damaged.length() + 1);
            switch (rnd.nextInt(3)) {
                case 0:
                    if (at < damaged.length() && !Character.isSurrogate(damaged.charAt(at))) {
                        damaged.deleteCharAt(at);
                    }
                    break;
                case 1:
                    int pick = rnd.nextInt(debris.length() - 1);
                    damaged.insert(at, Character.isSurrogate(debris.charAt(pick)) ? "\ud83d\ude00" : debris.charAt(pick));
                    break;
                default:
                    int from = rnd.nextInt(damaged.length() + 1);
                    String piece = damaged.substring(Math.min(from, at), Math.max(from, at));
                    if (piece.length() < 40 && !hasLoneSurrogate(piece)) {
                        damaged.insert(Math.max(from, at), piece);
                    }
            }
        }
        String input = damaged.toString();
        assertThat(outcome(() -> JsonCanonicalizer.canonicalize(input, PointerSet.EMPTY))).as(visible(input))
                .isEqualTo(outcome(() -> LegacyCanonicalizer.canonicalize(input, PointerSet.EMPTY)));
        // (A split surrogate pair becomes '?' here, as the JDK encodes it.)
        byte[] utf8 = input.getBytes(StandardCharsets.UTF_8);
        assertThat(outcome(() -> JsonCanonicalizer.canonicalize(utf8, PointerSet.EMPTY))).as(visible(input))
                .isEqualTo(outcome(() -> LegacyCanonicalizer.canonicalize(utf8, PointerSet.EMPTY)));
    }

    static String outcome(Supplier<byte[]> canonicalization) {
        try {
            return "ok " + HexFormat.of().formatHex(canonicalization.get());
        } catch (InvalidRequestException e) {
            return "refused " + e.httpStatus();
        }
    }

    @SuppressWarnings("unchecked")
    private static void paths(Object v, String prefix, List<String> out) {
        if (v instanceof Map) {
            for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
                String p = prefix + "/" + e.getKey().replace("~", "~0").replace("/", "~1");
                out.add(p);
                paths(e.getValue(), p, out);
            }
        } else if (v instanceof List) {
            List<Object> l = (List<Object>) v;
            for (int i = 0; i < l.size(); i++) {
                out.add(prefix + "/" + i);
                paths(l.get(i), prefix + "/" + i, out);
            }
        }
    }

    // Members shuffled, random whitespace, strings escaped at random, numbers re-spelled.
    @SuppressWarnings("unchecked")
    static String render(Object v, Random rnd) {
        String ws = List.of("", "", " ", "\n", "\t ", "\r\n").get(rnd.nextInt(6));
        if (v instanceof Map) {
            List<Map.Entry<String, Object>> entries = new ArrayList<>(((Map<String, Object>) v).entrySet());
            if (rnd.nextInt(4) > 0) {
                Collections.shuffle(entries, rnd);
            }
            List<String> members = new ArrayList<>();
            for (Map.Entry<String, Object> e : entries) {
                members.add(ws + quote(e.getKey(), rnd) + ws + ":" + ws + render(e.getValue(), rnd));
            }
            return "{" + String.join(",", members) + ws + "}";
        }
        if (v instanceof List) {
            List<String> items = new ArrayList<>();
            ((List<Object>) v).forEach(x -> items.add(ws + render(x, rnd)));
            return "[" + String.join(",", items) + ws + "]";
        }
        if (v instanceof String) {
            return quote((String) v, rnd);
        }
        if (v instanceof BigDecimal) {
            BigDecimal n = (BigDecimal) v;
            switch (rnd.nextInt(5)) {
                case 0: return n.toPlainString();
                case 1: return n.unscaledValue() + (rnd.nextBoolean() ? "e" : "E") + (-n.scale());
                case 2: return n.signum() == 0 ? "-0.0e+3" : n.unscaledValue() + "0E" + (-n.scale() - 1);
                case 3: return n.setScale(Math.max(n.scale(), 0) + 2).toPlainString();
                default: return n.toString();
            }
        }
        return String.valueOf(v);
    }

    private static String quote(String s, Random rnd) {
        StringBuilder sb = new StringBuilder("\"");
        s.codePoints().forEach(cp -> {
            char[] units = Character.toChars(cp);
            if (cp < 0x20 || cp == '"' || cp == '\\' || rnd.nextInt(6) == 0) {
                for (char c : units) {
                    String shortForm = c == '\n' ? "\\n" : c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '/' ? "\\/" : null;
                    sb.append(shortForm != null && rnd.nextBoolean() ? shortForm
                            : String.format(rnd.nextBoolean() ? "\\u%04x" : "\\u%04X", (int) c));
                }
            } else {
                sb.append(units);
            }
        });
        return sb.append('"').toString();
    }

    // Control characters and non-ASCII as Java escapes, so a failure report shows them.
    static String visible(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            sb.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return sb.toString();
    }

    static boolean hasLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }
}
