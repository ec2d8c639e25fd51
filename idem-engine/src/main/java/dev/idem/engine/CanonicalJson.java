package dev.idem.engine;

import dev.idem.engine.internal.Fingerprinter;
import dev.idem.engine.internal.json.JsonCanonicalizer;
import dev.idem.engine.internal.json.PointerSet;
import java.security.MessageDigest;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

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
 *
 * <p>Choose the form you need: {@link #sha256(String)} and {@link #digest(String, MessageDigest)}
 * allocate nothing but the digest (the canonical text is hashed from a reused per-thread buffer),
 * {@link #canonicalizeToUtf8(String)} allocates the canonical bytes, and
 * {@link #canonicalize(String)} the canonical {@code String}.
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
        return JsonCanonicalizer.canonicalText(json, PointerSet.EMPTY);
    }

    /**
     * The canonical form of JSON text, in UTF-8: what {@link #canonicalize(String)} returns,
     * without making a {@code String} of it (for hashing, signing or sending).
     *
     * @param json the JSON text
     * @return its canonical text, in UTF-8
     * @throws dev.idem.api.InvalidRequestException if the text is not strict JSON
     */
    public static byte[] canonicalizeToUtf8(String json) {
        return JsonCanonicalizer.canonicalize(json, PointerSet.EMPTY);
    }

    /**
     * The SHA-256 of the canonical UTF-8 form of JSON text, the canonical form fed to the digest
     * as it is made, never copied out: the cheapest way to compare two documents by value.
     * (idem's request fingerprint also covers the operation name; see
     * {@link IdempotencyEngine}.)
     *
     * @param json the JSON text
     * @return the 32-byte digest
     * @throws dev.idem.api.InvalidRequestException if the text is not strict JSON
     */
    public static byte[] sha256(String json) {
        MessageDigest sha = Fingerprinter.borrowSha256();
        JsonCanonicalizer.digest(json, PointerSet.EMPTY, sha);
        return Fingerprinter.digestAndReturn(sha);
    }

    /**
     * The SHA-256 of the canonical UTF-8 form of UTF-8 JSON (see {@link #sha256(String)}).
     *
     * @param json the UTF-8 JSON text
     * @return the 32-byte digest
     * @throws dev.idem.api.InvalidRequestException if the bytes are not strict UTF-8 JSON
     */
    public static byte[] sha256(byte[] json) {
        MessageDigest sha = Fingerprinter.borrowSha256();
        JsonCanonicalizer.digest(json, PointerSet.EMPTY, sha);
        return Fingerprinter.digestAndReturn(sha);
    }

    /**
     * Feeds the canonical UTF-8 form of JSON text to {@code digest} (any algorithm, or an HMAC
     * through a {@code MessageDigest} adapter), without materializing it.
     *
     * @param json the JSON text
     * @param digest the digest to update
     * @throws dev.idem.api.InvalidRequestException if the text is not strict JSON (the digest
     *     may then hold part of the text: discard or reset it)
     */
    public static void digest(String json, MessageDigest digest) {
        JsonCanonicalizer.digest(json, PointerSet.EMPTY, Objects.requireNonNull(digest, "digest"));
    }

    /**
     * Feeds the canonical UTF-8 form of UTF-8 JSON to {@code digest}, without materializing it.
     *
     * @param json the UTF-8 JSON text
     * @param digest the digest to update
     * @throws dev.idem.api.InvalidRequestException if the bytes are not strict UTF-8 JSON (the
     *     digest may then hold part of the text: discard or reset it)
     */
    public static void digest(byte[] json, MessageDigest digest) {
        JsonCanonicalizer.digest(json, PointerSet.EMPTY, Objects.requireNonNull(digest, "digest"));
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
