package dev.idem.engine;

import dev.idem.engine.internal.JsonCanonicalizer;
import dev.idem.engine.internal.PointerSet;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;

/**
 * RFC 8785 (JSON Canonicalization Scheme) for request fingerprints: members sorted by
 * UTF-16 code units, no insignificant whitespace, minimal string escaping, and numbers in
 * ECMAScript form, so key order, whitespace and number spelling ({@code 1.0}, {@code 1},
 * {@code 1e0}) never change a fingerprint.
 *
 * <p>Byte-exact RFC 8785 for I-JSON input, with one documented difference that keeps money
 * and 64-bit ids safe: an integer-valued number is printed with all its digits, so
 * {@code 9007199254740993} does not collapse into {@code 9007199254740992} as it would
 * through a double. Non-integer numbers go through the nearest double exactly as RFC 8785
 * says (send decimals that need more precision than a double as strings).
 *
 * <p>Input must be strict JSON: malformed text, trailing content, duplicate member names,
 * lone surrogates, {@code NaN} or {@code Infinity} raise
 * {@link dev.idem.api.InvalidRequestException}.
 */
public final class CanonicalJson {
    private CanonicalJson() {
    }

    /** The canonical form of {@code json}. */
    public static String canonicalize(String json) {
        return new String(JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY), StandardCharsets.UTF_8);
    }

    /** The canonical UTF-8 bytes of UTF-8 {@code json}. */
    public static byte[] canonicalize(byte[] json) {
        return JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY);
    }

    /**
     * The canonical UTF-8 bytes of UTF-8 {@code json} without the members and elements the
     * given RFC 6901 JSON Pointers name (for example {@code /meta/traceId}).
     *
     * @throws IllegalArgumentException if a pointer is malformed or names the whole document
     */
    public static byte[] canonicalize(byte[] json, Collection<String> excludedPointers) {
        return JsonCanonicalizer.canonicalize(json, PointerSet.of(List.copyOf(excludedPointers)));
    }
}
