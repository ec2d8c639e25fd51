package dev.idem.store.redis;

import dev.idem.api.IdempotencyKey;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Where a key's record lives in Redis: {@code <prefix>{<tag>}<n>:<scope><m>:<operation><key>}.
 * The one key layout of idem's Redis records, used by {@link RedisIdempotencyStore} and by
 * store-hybrid's gate (each under its own prefix), and by operators and tests that look a record
 * up. Thread-safe.
 *
 * <p>Uniqueness comes from the part after the tag: scope and operation are prefixed by
 * their UTF-8 byte length and the token runs to the end, so no choice of ':', '{', '}' or
 * '/' in any part can make two identities encode alike. The tag is a digest of that part:
 * Redis Cluster hashes only the text between the first '{' and the next '}', so placing
 * our tag first (the prefix may hold no braces) means user-chosen text never picks the
 * slot, and records spread evenly over slots instead of piling onto one.
 */
public final class RedisKeyLayout {
    private static final int TAG_BYTES = 8;

    private static final int CACHE_SLOTS = 1024;
    private static final MessageDigest PROTOTYPE = newSha256();

    private final byte[] prefix;
    // The keys of recent calls (a first execution asks twice, a replayed key again and
    // again), direct-mapped by hash: a hit saves the identity encoding and its SHA-256. Slots
    // are replaced whole and entries are immutable, so racing threads at worst recompute.
    private final Cached[] cache = new Cached[CACHE_SLOTS];

    private static final class Cached {
        final IdempotencyKey key;
        final byte[] redisKey;
        final byte[] identitySha256;

        Cached(IdempotencyKey key, byte[] redisKey, byte[] identitySha256) {
            this.key = key;
            this.redisKey = redisKey;
            this.identitySha256 = identitySha256;
        }
    }

    private RedisKeyLayout(String prefix) {
        this.prefix = prefix.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The layout under {@code prefix}.
     *
     * @param prefix at most 64 characters, no control characters, no '{' or '}' (so the tag alone
     *     picks a cluster slot)
     * @return the layout
     * @throws IllegalArgumentException if the prefix is not such text
     */
    public static RedisKeyLayout withPrefix(String prefix) {
        return new RedisKeyLayout(checkPrefix(prefix));
    }

    /**
     * {@code keyPrefix} if it may start a record's Redis key (see {@link #withPrefix}).
     *
     * @param keyPrefix the prefix
     * @return the prefix
     * @throws IllegalArgumentException if it may not
     */
    public static String checkPrefix(String keyPrefix) {
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        if (keyPrefix.length() > 64) {
            throw new IllegalArgumentException(
                    "keyPrefix must be at most 64 characters but was " + keyPrefix.length() + ": " + keyPrefix);
        }
        for (int i = 0; i < keyPrefix.length(); i++) {
            char c = keyPrefix.charAt(i);
            if (c == '{' || c == '}' || Character.isISOControl(c)) {
                throw new IllegalArgumentException("keyPrefix must not contain '{', '}' or control characters but was \""
                        + keyPrefix + "\" (index " + i + ")");
            }
        }
        return keyPrefix;
    }

    /**
     * The Redis key of {@code key}'s record.
     *
     * @param key the key
     * @return the Redis key; callers must not modify it (it may be shared with other calls)
     */
    public byte[] redisKey(IdempotencyKey key) {
        return entry(key).redisKey;
    }

    /**
     * The SHA-256 of the key's identity (the part after the tag), whose first bytes are the tag: a
     * record may hold a digest of it to tell a record copied from another key from its own.
     *
     * @param key the key
     * @return a fresh copy of the 32-byte digest
     */
    public byte[] identitySha256(IdempotencyKey key) {
        return entry(key).identitySha256.clone();
    }

    private Cached entry(IdempotencyKey key) {
        int slot = key.hashCode() & (CACHE_SLOTS - 1);
        Cached hit = cache[slot];
        if (hit != null && hit.key.equals(key)) {
            return hit;
        }
        Cached computed = compute(key);
        cache[slot] = computed;
        return computed;
    }

    private Cached compute(IdempotencyKey key) {
        byte[] identity = identity(key);
        byte[] sha = sha256(identity);
        String tag = HexFormat.of().formatHex(sha, 0, TAG_BYTES);
        ByteArrayOutputStream out = new ByteArrayOutputStream(prefix.length + TAG_BYTES * 2 + 2 + identity.length);
        out.writeBytes(prefix);
        out.write('{');
        out.writeBytes(tag.getBytes(StandardCharsets.US_ASCII));
        out.write('}');
        out.writeBytes(identity);
        return new Cached(key, out.toByteArray(), sha);
    }

    private static byte[] identity(IdempotencyKey key) {
        byte[] scope = key.scope().getBytes(StandardCharsets.UTF_8);
        byte[] operation = key.operation().getBytes(StandardCharsets.UTF_8);
        byte[] token = key.key().getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream out = new ByteArrayOutputStream(scope.length + operation.length + token.length + 12);
        lengthPrefixed(out, scope);
        lengthPrefixed(out, operation);
        out.writeBytes(token);
        return out.toByteArray();
    }

    private static void lengthPrefixed(ByteArrayOutputStream out, byte[] part) {
        out.writeBytes(Integer.toString(part.length).getBytes(StandardCharsets.US_ASCII));
        out.write(':');
        out.writeBytes(part);
    }

    // A clone of a prototype: a provider lookup per call costs more than the hash.
    private static byte[] sha256(byte[] bytes) {
        try {
            return ((MessageDigest) PROTOTYPE.clone()).digest(bytes);
        } catch (CloneNotSupportedException e) {
            return newSha256().digest(bytes);
        }
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required on every Java platform", e);
        }
    }
}
