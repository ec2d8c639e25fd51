package dev.idem.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The identity of one intent: who asks ({@code scope}), what they ask for
 * ({@code operation}) and the client's token ({@code key}).
 *
 * <p>The same token under another scope or operation is another intent, so a token
 * leaked by one tenant can never replay another tenant's outcome. Instances are
 * immutable and validated on construction:
 * <ul>
 *   <li>{@code key}: 1..{@value #MAX_KEY_LENGTH} characters of visible printable ASCII
 *       ({@code 0x21..0x7E});</li>
 *   <li>{@code scope} and {@code operation}: 1..{@value #MAX_SCOPE_LENGTH} characters,
 *       no ISO control characters and no lone surrogates (any other Unicode is allowed).</li>
 * </ul>
 * A violation throws {@link InvalidIdempotencyKeyException} naming the part and the reason.
 *
 * <p>Build keys with named steps, so the three strings cannot be swapped silently:
 * <pre>{@code
 * IdempotencyKey key = IdempotencyKey.inScope(customerId)      // who asks
 *         .operation("create-charge")                          // what for
 *         .key(clientKey);                                     // the client's token
 *
 * // The scope and operation part can be kept and reused for every token of one caller:
 * IdempotencyKey.ScopedOperation charges = IdempotencyKey.inScope(customerId).operation("create-charge");
 * IdempotencyKey first = charges.key(firstToken);
 * }</pre>
 * {@link #of(String, String, String)} takes the same three parts positionally.
 */
public final class IdempotencyKey {
    /** Longest client token accepted. */
    public static final int MAX_KEY_LENGTH = 255;
    /** Longest scope or operation accepted, in UTF-16 code units. */
    public static final int MAX_SCOPE_LENGTH = 200;

    private final String scope;
    private final String operation;
    private final String key;
    private final int hash;

    private IdempotencyKey(String scope, String operation, String key) {
        this.scope = checkName("scope", scope);
        this.operation = checkName("operation", operation);
        this.key = checkToken(key);
        this.hash = Objects.hash(scope, operation, key);
    }

    /**
     * Builds and validates a key from its three parts, in this order. Three strings in a row
     * are easy to swap; {@link #inScope(String)} names each part instead.
     *
     * @param scope the scope
     * @param operation the operation
     * @param key the key
     * @return the idempotency key
     * @throws InvalidIdempotencyKeyException if any part is null, empty, too long or has
     *     a forbidden character
     */
    public static IdempotencyKey of(String scope, String operation, String key) {
        return new IdempotencyKey(scope, operation, key);
    }

    /**
     * The first named step of a key: its scope (the tenant or authenticated principal), checked
     * at once. Continue with {@link Scoped#operation(String)} and {@link ScopedOperation#key(String)}.
     *
     * @param scope the tenant or authenticated principal the key belongs to
     * @return the scope, waiting for the operation
     * @throws InvalidIdempotencyKeyException if the scope is null, empty, too long or has a
     *     forbidden character
     */
    public static Scoped inScope(String scope) {
        return new Scoped(checkName("scope", scope));
    }

    /**
     * A validated scope, waiting for its operation: the first of the named steps of
     * {@link #inScope(String)}. Immutable; may be kept and reused.
     */
    public static final class Scoped {
        private final String scope;

        private Scoped(String scope) {
            this.scope = scope;
        }

        /**
         * Names the operation, checked at once.
         *
         * @param operation the endpoint or operation name the key applies to
         * @return the scope and operation, waiting for the client's token
         * @throws InvalidIdempotencyKeyException if the operation is null, empty, too long or
         *     has a forbidden character
         */
        public ScopedOperation operation(String operation) {
            return new ScopedOperation(scope, checkName("operation", operation));
        }

        @Override
        public String toString() {
            return "IdempotencyKey.Scoped[" + scope + "]";
        }
    }

    /**
     * A validated scope and operation, waiting for the client's token: the second of the named
     * steps of {@link #inScope(String)}. Immutable; keep one per caller and operation to build
     * the key of every request.
     */
    public static final class ScopedOperation {
        private final String scope;
        private final String operation;

        private ScopedOperation(String scope, String operation) {
            this.scope = scope;
            this.operation = operation;
        }

        /**
         * Completes the key with the client's token.
         *
         * @param key the client's token (the Idempotency-Key header's value)
         * @return the idempotency key, equal to {@code IdempotencyKey.of(scope, operation, key)}
         * @throws InvalidIdempotencyKeyException if the token is null, empty, too long or has a
         *     character outside visible ASCII
         */
        public IdempotencyKey key(String key) {
            return new IdempotencyKey(scope, operation, key);
        }

        @Override
        public String toString() {
            return "IdempotencyKey.ScopedOperation[" + scope + ", " + operation + "]";
        }
    }

    /**
     * The tenant or authenticated principal the key belongs to.
     *
     * @return the tenant or authenticated principal the key belongs to
     */
    public String scope() {
        return scope;
    }

    /**
     * The endpoint or operation name the key applies to.
     *
     * @return the endpoint or operation name the key applies to
     */
    public String operation() {
        return operation;
    }

    /**
     * The client's token.
     *
     * @return the client's token
     */
    public String key() {
        return key;
    }

    private static String checkName(String part, String value) {
        if (value == null) {
            throw new InvalidIdempotencyKeyException(part + " must not be null");
        }
        if (value.isEmpty()) {
            throw new InvalidIdempotencyKeyException(part + " must not be empty");
        }
        if (value.length() > MAX_SCOPE_LENGTH) {
            throw new InvalidIdempotencyKeyException(
                    part + " is " + value.length() + " characters long; at most " + MAX_SCOPE_LENGTH + " allowed");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw new InvalidIdempotencyKeyException(
                        part + " has a control character at index " + i);
            }
            // A lone surrogate is not text: UTF-8 stores would turn it into '?' and let keys collide.
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new InvalidIdempotencyKeyException(part + " has a lone surrogate at index " + i);
            }
        }
        return value;
    }

    private static String checkToken(String value) {
        if (value == null) {
            throw new InvalidIdempotencyKeyException("key must not be null");
        }
        if (value.isEmpty()) {
            throw new InvalidIdempotencyKeyException("key must not be empty");
        }
        if (value.length() > MAX_KEY_LENGTH) {
            throw new InvalidIdempotencyKeyException(
                    "key is " + value.length() + " characters long; at most " + MAX_KEY_LENGTH + " allowed");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                throw new InvalidIdempotencyKeyException(String.format(
                        "key has a character outside visible ASCII (U+%04X) at index %d", (int) c, i));
            }
        }
        return value;
    }

    /**
     * A name for this key that can be logged and recorded in telemetry without revealing it:
     * {@link #digest(String, String, String)} of its three parts.
     *
     * @return 32 lower-case hex digits
     */
    public String digest() {
        return digest(scope, operation, key);
    }

    /**
     * A stable, non-reversible name for a key: hex of the first 16 bytes of SHA-256 over scope,
     * operation and key, each prefixed by its UTF-8 length (4 bytes, big-endian) so that no two
     * keys collide by concatenation. Metrics, traces and logs record this instead of the key;
     * it takes the parts as strings because events carry them so.
     *
     * @param scope the key's scope
     * @param operation the key's operation
     * @param key the client key
     * @return 32 lower-case hex digits
     */
    public static String digest(String scope, String operation, String key) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
        for (String part : new String[] {scope, operation, key}) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            sha.update((byte) (bytes.length >>> 24));
            sha.update((byte) (bytes.length >>> 16));
            sha.update((byte) (bytes.length >>> 8));
            sha.update((byte) bytes.length);
            sha.update(bytes);
        }
        return HexFormat.of().formatHex(sha.digest(), 0, 16);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof IdempotencyKey)) {
            return false;
        }
        IdempotencyKey other = (IdempotencyKey) o;
        return hash == other.hash && key.equals(other.key) && operation.equals(other.operation)
                && scope.equals(other.scope);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** Scope, operation and token; tokens are not secrets, payloads never appear here. */
    @Override
    public String toString() {
        return "IdempotencyKey[" + scope + ", " + operation + ", " + key + "]";
    }
}
