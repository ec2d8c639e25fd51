package dev.idem.engine.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The canonicalizer's exact output against an independent, deliberately naive oracle (a
 * recursive writer over a sorted tree, strings escaped per RFC 8785 section 3.2.2.2 and
 * encoded by the JDK), over documents with every kind of character, wide objects and
 * integers of any size. The fingerprint properties check invariance; this checks the bytes.
 */
class CanonicalOracleProperties {

    @Provide
    Arbitrary<Object> documents() {
        return value(4);
    }

    private Arbitrary<Object> value(int depth) {
        Arbitrary<Object> leaf = Arbitraries.frequencyOf(
                Tuple.of(3, text().map(s -> (Object) s)),
                Tuple.of(2, Arbitraries.bigIntegers().between(BigInteger.TEN.pow(40).negate(), BigInteger.TEN.pow(40))
                        .map(b -> (Object) b)),
                Tuple.of(1, Arbitraries.of(Boolean.TRUE, Boolean.FALSE).map(b -> (Object) b)),
                Tuple.of(1, Arbitraries.just((Object) null)));
        if (depth == 0) {
            return leaf;
        }
        Arbitrary<Object> child = value(depth - 1);
        return Arbitraries.frequencyOf(
                Tuple.of(2, leaf),
                Tuple.of(1, child.list().ofMaxSize(5).map(l -> (Object) l)),
                Tuple.of(2, Arbitraries.maps(text(), child).ofMaxSize(24).map(m -> (Object) new LinkedHashMap<>(m))));
    }

    // Every escape class, ASCII, two- and three-byte characters, and well-formed surrogate pairs.
    private static Arbitrary<String> text() {
        Arbitrary<String> unit = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.chars().range(' ', '~').map(String::valueOf)),
                Tuple.of(2, Arbitraries.chars().range('\u0000', '\u001f').map(String::valueOf)),
                Tuple.of(1, Arbitraries.of("\"", "\\", "/", "\u007f")),
                Tuple.of(2, Arbitraries.chars().range('\u0080', '\u07ff').map(String::valueOf)),
                Tuple.of(2, Arbitraries.chars().range('\u0800', '\ud7ff').map(String::valueOf)),
                Tuple.of(1, Arbitraries.chars().range('\ue000', '\uffff').map(String::valueOf)),
                Tuple.of(1, Arbitraries.integers().between(0x10000, 0x10FFFF).map(Character::toString)));
        return unit.list().ofMaxSize(40).map(parts -> String.join("", parts));
    }

    @Property(tries = 120)
    void outputIsExactlyTheOraclesBytes(@ForAll("documents") Object doc, @ForAll long seed) {
        String input = render(doc, new Random(seed));
        byte[] expected = oracle(doc).getBytes(StandardCharsets.UTF_8);
        assertThat(JsonCanonicalizer.canonicalize(input, PointerSet.EMPTY)).as(input).isEqualTo(expected);
        assertThat(JsonCanonicalizer.canonicalize(input.getBytes(StandardCharsets.UTF_8), PointerSet.EMPTY))
                .isEqualTo(expected);
    }

    @SuppressWarnings("unchecked")
    private static String oracle(Object v) {
        if (v instanceof Map) {
            TreeMap<String, Object> sorted = new TreeMap<>((Map<String, Object>) v);
            List<String> members = new ArrayList<>();
            sorted.forEach((k, x) -> members.add(quote(k) + ":" + oracle(x)));
            return "{" + String.join(",", members) + "}";
        }
        if (v instanceof List) {
            List<String> items = new ArrayList<>();
            ((List<Object>) v).forEach(x -> items.add(oracle(x)));
            return "[" + String.join(",", items) + "]";
        }
        if (v instanceof String) {
            return quote((String) v);
        }
        if (v instanceof BigInteger) {
            BigInteger b = (BigInteger) v;
            String digits = b.abs().toString();
            if (digits.length() <= 21) {
                return b.toString();
            }
            String significant = digits.replaceAll("0+$", "");
            String mantissa = significant.length() == 1 ? significant
                    : significant.charAt(0) + "." + significant.substring(1);
            return (b.signum() < 0 ? "-" : "") + mantissa + "e+" + (digits.length() - 1);
        }
        return String.valueOf(v);
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\b': sb.append("\\b"); break;
                case '\f': sb.append("\\f"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        return sb.append('"').toString();
    }

    // Input: members shuffled, random whitespace, strings with random (valid) escapes.
    @SuppressWarnings("unchecked")
    private static String render(Object v, Random rnd) {
        String ws = List.of("", " ", "\n", "\t ", "\r\n").get(rnd.nextInt(5));
        if (v instanceof Map) {
            List<Map.Entry<String, Object>> entries = new ArrayList<>(((Map<String, Object>) v).entrySet());
            Collections.shuffle(entries, rnd);
            List<String> members = new ArrayList<>();
            for (Map.Entry<String, Object> e : entries) {
                members.add(ws + escapeAnyhow(e.getKey(), rnd) + ws + ":" + ws + render(e.getValue(), rnd));
            }
            return "{" + String.join(",", members) + ws + "}";
        }
        if (v instanceof List) {
            List<String> items = new ArrayList<>();
            ((List<Object>) v).forEach(x -> items.add(ws + render(x, rnd)));
            return "[" + String.join(",", items) + ws + "]";
        }
        if (v instanceof String) {
            return escapeAnyhow((String) v, rnd);
        }
        if (v instanceof BigInteger && rnd.nextBoolean()) {
            return v + ".000e0";
        }
        return String.valueOf(v);
    }

    private static String escapeAnyhow(String s, Random rnd) {
        StringBuilder sb = new StringBuilder("\"");
        // Per code point: a surrogate pair is escaped whole or not at all.
        s.codePoints().forEach(cp -> {
            char[] units = Character.toChars(cp);
            if (cp < 0x20 || cp == '"' || cp == '\\' || rnd.nextInt(6) == 0) {
                for (char c : units) {
                    sb.append(String.format(rnd.nextBoolean() ? "\\u%04x" : "\\u%04X", (int) c));
                }
            } else {
                sb.append(units);
            }
        });
        return sb.append('"').toString();
    }
}
