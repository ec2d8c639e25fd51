package dev.idem.store.redis.internal;

import dev.idem.api.IdempotencyKey;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Maps an {@link IdempotencyKey} to the Redis key of its record:
 * {@code <prefix>{<tag>}<n>:<scope><m>:<operation><key>}.
 *
 * <p>Uniqueness comes from the part after the tag: scope and operation are prefixed by
 * their UTF-8 byte length and the token runs to the end, so no choice of ':', '{', '}' or
 * '/' in any part can make two identities encode alike. The tag is a digest of that part:
 * Redis Cluster hashes only the text between the first '{' and the next '}', so placing
 * our tag first (the prefix may hold no braces) means user-chosen text never picks the
 * slot, and records spread evenly over slots instead of piling onto one.
 */
public final class RecordKeys {
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

        Cached(IdempotencyKey key, byte[] redisKey) {
            this.key = key;
            this.redisKey = redisKey;
        }
    }

    /** Creates the mapping; {@code prefix} is assumed validated (no braces). */
    public RecordKeys(String prefix) {
        this.prefix = prefix.getBytes(StandardCharsets.UTF_8);
    }

    /** The record's Redis key; callers must not modify it (it may be shared with other calls). */
    public byte[] of(IdempotencyKey key) {
        int slot = key.hashCode() & (CACHE_SLOTS - 1);
        Cached hit = cache[slot];
        if (hit != null && hit.key.equals(key)) {
            return hit.redisKey;
        }
        byte[] redisKey = compute(key);
        cache[slot] = new Cached(key, redisKey);
        return redisKey;
    }

    private byte[] compute(IdempotencyKey key) {
        byte[] identity = identity(key);
        String tag = HexFormat.of().formatHex(sha256(identity), 0, TAG_BYTES);
        ByteArrayOutputStream out = new ByteArrayOutputStream(prefix.length + TAG_BYTES * 2 + 2 + identity.length);
        out.writeBytes(prefix);
        out.write('{');
        out.writeBytes(tag.getBytes(StandardCharsets.US_ASCII));
        out.write('}');
        out.writeBytes(identity);
        return out.toByteArray();
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
