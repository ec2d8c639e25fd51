package dev.idem.engine;

import dev.idem.engine.internal.json.JsonCanonicalizer;
import dev.idem.engine.internal.json.PointerSet;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;

/**
 * The canonical JSON text that request fingerprints are computed over: RFC 8785 (JSON
 * Canonicalization Scheme) with numbers compared by exact decimal value. Members are sorted
 * by UTF-16 code units, there is no insignificant whitespace, strings use minimal escaping,
 * so key order, whitespace, escapes and number spelling ({@code 1}, {@code 1.0},
 * {@code 1e0}, {@code 10E-1}) never change the result, and two documents have the same
 * canonical text exactly when their JSON values are equal.
 *
 * <p>Numbers: a literal's exact decimal value is printed with its significant digits in the
 * ECMAScript Number::toString layout. Wherever the literal is the shortest round-trip form of
 * a double (every number an ECMAScript serializer writes, and every {@code double} Jackson
 * writes) this is byte-exact RFC 8785. Any other literal keeps its exact digits where RFC 8785
 * would print its nearest double: {@code 1.000000000000000001} stays distinct from {@code 1},
 * {@code 9007199254740993} from {@code 9007199254740992}, and the RFC's own example
 * {@code 333333333.33333329} is printed as is rather than as {@code 333333333.3333333} (a
 * different number). The output is its own canonical form.
 *
 * <p>Input must be strict JSON: malformed text, trailing content, duplicate member names,
 * lone surrogates, {@code NaN}, {@code Infinity} or an exponent of ten or more digits raise
 * {@link dev.idem.api.InvalidRequestException} (HTTP 400); text beyond a parser limit (nesting
 * deeper than 1000, a number of more than 1000 digits, a member name of more than 50,000 or a
 * string of more than 20,000,000 UTF-8 bytes) raises it with HTTP 413. Bytes must be UTF-8 (a
 * leading byte order mark is skipped; UTF-16 and UTF-32 text is recognised and decoded). The
 * cost is linear in the size of the input, whatever its depth, and it streams: no tree is
 * built and nothing is allocated per member.
 */
public final class CanonicalJson {
    private CanonicalJson() {
    }

    /**
     * The canonical form of JSON text.
     *
     * @param json the JSON text
     * @return its canonical text
     * @throws dev.idem.api.InvalidRequestException if the text is not strict JSON
     */
    public static String canonicalize(String json) {
        return new String(JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY), StandardCharsets.UTF_8);
    }

    /**
     * The canonical form of UTF-8 JSON.
     *
     * @param json the UTF-8 JSON text
     * @return its canonical text, in UTF-8
     * @throws dev.idem.api.InvalidRequestException if the bytes are not strict UTF-8 JSON
     */
    public static byte[] canonicalize(byte[] json) {
        return JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY);
    }

    /**
     * The canonical UTF-8 bytes of UTF-8 {@code json} without the members and elements the
     * given RFC 6901 JSON Pointers name (for example {@code /meta/traceId}).
     *
     * @param json the UTF-8 JSON text
     * @param excludedPointers the members and elements to leave out
     * @return the canonical text of what remains, in UTF-8
     * @throws dev.idem.api.InvalidRequestException if the bytes are not strict UTF-8 JSON
     * @throws IllegalArgumentException if a pointer is malformed or names the whole document
     */
    public static byte[] canonicalize(byte[] json, Collection<String> excludedPointers) {
        return JsonCanonicalizer.canonicalize(json, PointerSet.of(List.copyOf(excludedPointers)));
    }
}
