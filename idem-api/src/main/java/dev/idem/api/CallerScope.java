package dev.idem.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Objects;

/**
 * The scope of an {@link IdempotencyKey} as idem's adapters derive it from who calls: one
 * encoding, shared by every adapter (the HTTP filters and handlers, {@code @Idempotent} methods),
 * under which no two callers ever share a scope.
 *
 * <p>Three forms, told apart by how they begin, so that none can be spelled as another:
 * <ul>
 *   <li>{@link #of(String) a principal's name} is used as it is when it is a valid scope
 *       (1..{@value IdempotencyKey#MAX_SCOPE_LENGTH} UTF-16 units, no control character, no
 *       lone surrogate) and does not begin with {@value #DIGEST_PREFIX} or
 *       {@value #API_KEY_PREFIX}; any other name (too long, a control character, empty, or one
 *       of those beginnings) is replaced by {@value #DIGEST_PREFIX} and the URL-safe, unpadded
 *       Base64 of its SHA-256 (43 characters);</li>
 *   <li>{@link #ofApiKey(String) an API key} becomes {@value #API_KEY_PREFIX} and the Base64 of
 *       its SHA-256, so the secret itself is never stored.</li>
 * </ul>
 * A principal literally named {@code sha256:<digest>} or {@code api-key:<digest>} is itself
 * replaced by its digest, so it can neither read nor claim the records of the long name or the
 * API key whose scope it spells.
 *
 * <p>These are the spellings adapters used before the encoding was made unambiguous, for every
 * name that could not be taken for another: an ordinary name, a long or control-character name,
 * an API key. Records those callers stored before an upgrade are found after it. Only a name
 * that itself begins with one of the two prefixes is scoped differently now (its earlier records
 * could not be told from the records of the name or key it spelled).
 *
 * <p>The digest is of the name's UTF-8 bytes; a name holding a lone surrogate, which UTF-8 cannot
 * carry, is digested as a 0xFF byte (never part of UTF-8) followed by its UTF-16 units, so two
 * such names never share a digest either.
 */
public final class CallerScope {
    /** How the scope of a principal's name begins when the name is replaced by its digest. */
    public static final String DIGEST_PREFIX = "sha256:";
    /** How the scope of an API key begins. */
    public static final String API_KEY_PREFIX = "api-key:";

    private CallerScope() {
    }

    /**
     * The scope of the caller known by {@code name} (a login, a certificate's subject, a tenant
     * id), or of any other name an adapter turns into a key part (an HTTP operation).
     *
     * @param name the principal's name, as authentication gives it (any string)
     * @return the name itself, or {@value #DIGEST_PREFIX} and its digest (see the class documentation)
     */
    public static String of(String name) {
        Objects.requireNonNull(name, "name");
        return keptAsIs(name) ? name : DIGEST_PREFIX + digest(name);
    }

    /**
     * The scope of the caller known by an API key: {@value #API_KEY_PREFIX} and the key's
     * SHA-256, so that the store never holds the key. Verify the key before trusting the scope:
     * an unknown key only ever scopes its own records.
     *
     * @param apiKey the key as the caller sent it (not empty)
     * @return {@value #API_KEY_PREFIX} and the URL-safe, unpadded Base64 SHA-256 of the key
     * @throws IllegalArgumentException if {@code apiKey} is empty
     */
    public static String ofApiKey(String apiKey) {
        Objects.requireNonNull(apiKey, "apiKey");
        if (apiKey.isEmpty()) {
            throw new IllegalArgumentException("an API key must not be empty");
        }
        return API_KEY_PREFIX + digest(apiKey);
    }

    /** Valid as a scope, and not one of the encoded forms. */
    private static boolean keptAsIs(String name) {
        if (name.isEmpty() || name.length() > IdempotencyKey.MAX_SCOPE_LENGTH
                || name.startsWith(DIGEST_PREFIX) || name.startsWith(API_KEY_PREFIX)) {
            return false;
        }
        return wellFormed(name) && name.chars().noneMatch(Character::isISOControl);
    }

    private static boolean wellFormed(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    private static String digest(String text) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
        if (wellFormed(text)) {
            sha.update(text.getBytes(StandardCharsets.UTF_8));
        } else {
            // Every UTF-16 unit as it is (the JDK's UTF-16 encoder would replace a lone surrogate too).
            sha.update((byte) 0xFF);
            for (int i = 0; i < text.length(); i++) {
                sha.update((byte) (text.charAt(i) >>> 8));
                sha.update((byte) text.charAt(i));
            }
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(sha.digest());
    }
}
