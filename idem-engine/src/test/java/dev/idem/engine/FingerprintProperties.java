package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.engine.internal.Fingerprinter;
import dev.idem.engine.internal.json.PointerSet;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Fingerprint invariants over generated JSON: re-ordering members, re-spelling numbers and
 * re-spacing never change the fingerprint; changing any single value always does.
 */
class FingerprintProperties {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final Fingerprinter fingerprinter = new Fingerprinter(MAPPER, 10_000_000, PointerSet.EMPTY);

    /**
     * A JSON value: Map (ordered), List, String, BigDecimal, Boolean or null. Mostly small
     * trees three levels deep, with wide objects (17 to 40 members, past the insertion-sort
     * cut-off), long non-ASCII strings, numbers with up to 30 significant digits, and chains
     * nested 30 to 600 deep.
     */
    @Provide
    Arbitrary<Object> json() {
        return Arbitraries.frequencyOf(Tuple.of(4, json(3)), Tuple.of(1, deep()));
    }

    private Arbitrary<Object> json(int depth) {
        if (depth == 0) {
            return leaf();
        }
        Arbitrary<Object> child = json(depth - 1);
        return Arbitraries.frequencyOf(
                Tuple.of(2, leaf()),
                Tuple.of(1, child.list().ofMaxSize(4).map(l -> (Object) l)),
                Tuple.of(2, Arbitraries.maps(keys(), child).ofMaxSize(4).map(m -> (Object) new LinkedHashMap<>(m))),
                Tuple.of(1, Arbitraries.maps(keys(), leaf()).ofMinSize(17).ofMaxSize(40)
                        .map(m -> (Object) new LinkedHashMap<>(m))));
    }

    private static Arbitrary<String> keys() {
        return Arbitraries.strings().withCharRange(' ', '\u2FFF').withChars("\ud83d\ude00").ofMaxLength(6)
                .filter(s -> !hasLoneSurrogate(s));
    }

    // A value wrapped in a chain of single-member objects and one-element arrays.
    private Arbitrary<Object> deep() {
        return Combinators.combine(json(1), Arbitraries.integers().between(30, 600), Arbitraries.longs())
                .as((inner, levels, pattern) -> {
                    Object v = inner;
                    Random rnd = new Random(pattern);
                    for (int i = 0; i < levels; i++) {
                        if (rnd.nextBoolean()) {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put(rnd.nextBoolean() ? "k" : "\u00e9" + i, v);
                            if (rnd.nextInt(8) == 0) {
                                m.put("a", i);
                            }
                            v = m;
                        } else {
                            List<Object> l = new ArrayList<>();
                            l.add(v);
                            v = l;
                        }
                    }
                    return v;
                });
    }

    private Arbitrary<Object> leaf() {
        Arbitrary<Object> numbers = Arbitraries.bigIntegers().between(BigInteger.valueOf(-10).pow(30),
                BigInteger.TEN.pow(30)).flatMap(unscaled -> Arbitraries.integers().between(-3, 40)
                        .map(scale -> (Object) new BigDecimal(unscaled, scale)));
        Arbitrary<Object> longText = Arbitraries.strings().withCharRange('\u0080', '\uD7FF')
                .withCharRange('\uE000', '\uFFFF').withChars("\ud83d\ude00\"\\\n")
                .ofMinLength(100).ofMaxLength(3000)
                .map(s -> (Object) s.replace("\ud83d", "\ud83d\ude00").replace("\ude00\ude00", "\ude00"))
                .filter(s -> !hasLoneSurrogate((String) s));
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.strings().withCharRange('\u0000', '\uD7FF').ofMaxLength(8).map(s -> (Object) s)),
                Tuple.of(2, Arbitraries.strings().withChars("\ud83d\ude00\u20ac\"\\/\n").ofMaxLength(4)
                        .map(s -> (Object) s.replace("\ud83d", "\ud83d\ude00").replace("\ude00\ude00", "\ude00"))
                        .filter(s -> !hasLoneSurrogate((String) s))),
                Tuple.of(1, longText),
                Tuple.of(4, numbers),
                Tuple.of(1, Arbitraries.of(true, false).map(b -> (Object) b)),
                Tuple.of(1, Arbitraries.just(null)));
    }

    private static boolean hasLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return true;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    @Property(tries = 300)
    void reorderingRespellingAndRespacingKeepTheFingerprint(@ForAll("json") Object value, @ForAll long seed) {
        String plain = render(value, null);
        String variant = render(value, new Random(seed));
        assertThat(fp(variant)).as("%s vs %s", plain, variant).isEqualTo(fp(plain));
        assertThat(fp(Collections.singletonList(value))).as("POJO/Map path vs text for %s", plain)
                .isEqualTo(fp("[" + plain + "]"));
    }

    @Property(tries = 300)
    void changingAnyValueChangesTheFingerprint(@ForAll("json") Object value, @ForAll long seed) {
        List<Object[]> leaves = new ArrayList<>();
        collect(value, leaves);
        Random rnd = new Random(seed);
        Object changed = leaves.isEmpty() || !(value instanceof Map || value instanceof List)
                ? mutateLeaf(value) : mutate(value, rnd.nextInt(leaves.size() + 1), new int[1]);
        assertThat(fp(render(changed, rnd))).as("%s vs %s", render(value, null), render(changed, null))
                .isNotEqualTo(fp(render(value, null)));
    }

    @Property(tries = 200)
    void canonicalOutputIsAFixedPointAndDoublesRoundTrip(@ForAll("json") Object value, @ForAll double d) {
        String canonical = CanonicalJson.canonicalize(render(value, null));
        assertThat(CanonicalJson.canonicalize(canonical)).isEqualTo(canonical);
        if (Double.isFinite(d)) {
            String printed = CanonicalJson.canonicalize("[" + MAPPER.valueToTree(d) + "]");
            assertThat(Double.parseDouble(printed.substring(1, printed.length() - 1))).isEqualTo(d == 0 ? 0.0 : d);
        }
    }

    @Property(tries = 300)
    void aDoubleInAnObjectRequestFingerprintsLikeItsShortestDecimal(@ForAll double d) {
        if (!Double.isFinite(d)) {
            return;
        }
        // Oracle independent of the code under test: the fewest significant digits that read
        // back as d (rounding the exact binary value to p digits gives the closest p-digit decimal).
        BigDecimal exact = new BigDecimal(d);
        String shortest = "0";
        for (int p = 1; d != 0 && p <= 17; p++) {
            BigDecimal candidate = exact.round(new java.math.MathContext(p, java.math.RoundingMode.HALF_EVEN));
            if (Double.parseDouble(candidate.toString()) == d) {
                shortest = candidate.toString();
                break;
            }
        }
        assertThat(fp(Map.of("v", d))).as("%s as %s", d, shortest).isEqualTo(fp("{\"v\":" + shortest + "}"));
    }

    private byte[] fp(Object request) {
        return fingerprinter.fingerprint("op", request, PointerSet.EMPTY);
    }

    // Renders JSON text; with a Random, shuffles members, re-spells numbers and adds whitespace.
    @SuppressWarnings("unchecked")
    private static String render(Object v, Random rnd) {
        String ws = rnd == null ? "" : List.of("", " ", "\n\t ", "  ").get(rnd.nextInt(4));
        if (v instanceof Map) {
            List<Map.Entry<String, Object>> entries = new ArrayList<>(((Map<String, Object>) v).entrySet());
            if (rnd != null) {
                Collections.shuffle(entries, rnd);
            }
            StringBuilder sb = new StringBuilder("{" + ws);
            for (int i = 0; i < entries.size(); i++) {
                if (i > 0) {
                    sb.append(",").append(ws);
                }
                sb.append(string(entries.get(i).getKey())).append(ws).append(":").append(ws)
                        .append(render(entries.get(i).getValue(), rnd));
            }
            return sb.append(ws).append("}").toString();
        }
        if (v instanceof List) {
            List<String> parts = new ArrayList<>();
            for (Object o : (List<Object>) v) {
                parts.add(render(o, rnd));
            }
            return "[" + ws + String.join("," + ws, parts) + ws + "]";
        }
        if (v instanceof BigDecimal) {
            BigDecimal n = (BigDecimal) v;
            if (rnd == null) {
                return n.toPlainString();
            }
            switch (rnd.nextInt(4)) {
                case 0: return n.setScale(Math.max(n.scale(), 0) + 2).toPlainString();
                case 1: return n.unscaledValue() + "e" + (-n.scale());
                case 2: return n.signum() == 0 ? "0E7" : n.unscaledValue() + "0E" + (-n.scale() - 1);
                default: return n.toString();
            }
        }
        if (v instanceof String) {
            return string((String) v);
        }
        return String.valueOf(v);
    }

    private static String string(String s) {
        try {
            return MAPPER.writeValueAsString(s);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static void collect(Object v, List<Object[]> leaves) {
        if (v instanceof Map) {
            ((Map<String, Object>) v).values().forEach(c -> collect(c, leaves));
        } else if (v instanceof List) {
            ((List<Object>) v).forEach(c -> collect(c, leaves));
        } else {
            leaves.add(new Object[] {v});
        }
    }

    // Replaces the target-th leaf (depth-first); target == number of leaves adds a member or element instead.
    @SuppressWarnings("unchecked")
    private static Object mutate(Object v, int target, int[] counter) {
        if (v instanceof Map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
                copy.put(e.getKey(), mutate(e.getValue(), target, counter));
            }
            if (counter[0] == target && !copy.containsKey("\u0001added")) {
                counter[0]++;
                copy.put("\u0001added", 1);
            }
            return copy;
        }
        if (v instanceof List) {
            List<Object> copy = new ArrayList<>();
            for (Object o : (List<Object>) v) {
                copy.add(mutate(o, target, counter));
            }
            if (counter[0] == target) {
                counter[0]++;
                copy.add(null);
            }
            return copy;
        }
        return counter[0]++ == target ? mutateLeaf(v) : v;
    }

    private static Object mutateLeaf(Object v) {
        if (v instanceof BigDecimal) {
            BigDecimal n = (BigDecimal) v;
            // One unit in the last place: numbers compare by exact value, at any precision.
            return n.stripTrailingZeros().scale() <= 0 ? n.add(BigDecimal.ONE)
                    : n.add(BigDecimal.ONE.movePointLeft(n.stripTrailingZeros().scale()));
        }
        if (v instanceof String) {
            return v + "x";
        }
        if (v instanceof Boolean) {
            return !(Boolean) v;
        }
        return v == null ? BigDecimal.ZERO : null;
    }
}
