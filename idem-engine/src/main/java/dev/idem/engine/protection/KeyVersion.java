package dev.idem.engine.protection;

import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * One version of a secret: an id, written into every record protected with it so that the
 * record names the key it needs, and the secret's bytes. Immutable. Neither {@link #toString()}
 * nor any exception the engine raises shows the bytes; ids are not secret and appear in
 * records, errors and logs.
 *
 * <p>An id is 1..{@value #MAX_ID_LENGTH} characters of {@code A-Z a-z 0-9 . _ : -} (a date or
 * a counter: {@code 2026-06}, {@code v2}). The secret is {@value #MIN_BYTES} to
 * {@value #MAX_BYTES} bytes; 32 random bytes ({@code openssl rand -base64 32}) is the
 * recommended size for both outcome encryption and keyed fingerprints.
 */
public final class KeyVersion {
    /** Longest key id, in characters. */
    public static final int MAX_ID_LENGTH = 64;
    /** Fewest secret bytes accepted (128 bits). */
    public static final int MIN_BYTES = 16;
    /** Most secret bytes accepted. */
    public static final int MAX_BYTES = 64;

    private final String id;
    private final SecretKey key;
    private final int bits;

    private KeyVersion(String id, byte[] secret) {
        this.id = checkId(id);
        Objects.requireNonNull(secret, "secret");
        if (secret.length < MIN_BYTES || secret.length > MAX_BYTES) {
            throw new IllegalArgumentException("key '" + id + "' is " + secret.length + " bytes; a key must be "
                    + MIN_BYTES + " to " + MAX_BYTES + " bytes (32 random bytes recommended)");
        }
        this.key = new SecretKeySpec(secret, "HmacSHA256");
        this.bits = secret.length * 8;
    }

    /**
     * A key version from its bytes (copied).
     *
     * @param id the key id, written into every record protected with it
     * @param secret the secret, {@value #MIN_BYTES} to {@value #MAX_BYTES} bytes
     * @return the key version
     * @throws IllegalArgumentException if the id or the secret's length is not accepted (the
     *     message names the id and the length, never the bytes)
     */
    public static KeyVersion of(String id, byte[] secret) {
        return new KeyVersion(id, secret);
    }

    /**
     * A key version from Base64 text (standard or URL-safe alphabet, padding optional), as
     * configuration gives it.
     *
     * @param id the key id
     * @param base64 the secret in Base64
     * @return the key version
     * @throws IllegalArgumentException if the text is not Base64 or decodes to a length not
     *     accepted; the message names the id, never the text
     */
    public static KeyVersion fromBase64(String id, String base64) {
        Objects.requireNonNull(base64, "base64");
        String text = base64.strip();
        byte[] secret;
        try {
            secret = text.indexOf('-') >= 0 || text.indexOf('_') >= 0
                    ? Base64.getUrlDecoder().decode(text) : Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            // The decoder's message quotes the offending character: not repeated here.
            throw new IllegalArgumentException("key '" + checkId(id) + "' is not valid Base64", null);
        }
        try {
            return new KeyVersion(id, secret);
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }

    /**
     * Checks a key id.
     *
     * @param id the id
     * @return the id
     * @throws IllegalArgumentException if it is empty, too long or has a character outside
     *     {@code A-Z a-z 0-9 . _ : -}
     */
    public static String checkId(String id) {
        Objects.requireNonNull(id, "key id");
        if (id.isEmpty() || id.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException("a key id must be 1.." + MAX_ID_LENGTH + " characters but was "
                    + id.length());
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == ':' || c == '-';
            if (!ok) {
                throw new IllegalArgumentException("key id '" + id + "' has a character outside A-Z a-z 0-9 . _ : -"
                        + " at index " + i);
            }
        }
        return id;
    }

    /**
     * The key id.
     *
     * @return the id
     */
    public String id() {
        return id;
    }

    /**
     * The secret, as a key for {@code HmacSHA256}: the engine derives every cipher key from it.
     *
     * @return the secret key
     */
    public SecretKey secretKey() {
        return key;
    }

    /** The id and the size, never the secret. */
    @Override
    public String toString() {
        return "KeyVersion[" + id + ", " + bits + " bits]";
    }
}
