package dev.idem.store.hybrid.internal;

import dev.idem.api.IdempotencyKey;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where a key's gate record lives, {@code <prefix>{<tag>}<n>:<scope><m>:<operation><key>}, and the
 * digest of its identity stored inside it. Scope and operation are prefixed by their UTF-8
 * length, so no delimiter in any part makes two identities alike; the tag (a digest) comes
 * first, so on Redis Cluster user text never picks the slot. The digest in the record lets a
 * script tell a record copied from another key (foreign) from this key's own.
 */
public final class GateKeys {
    private final byte[] prefix;

    /**
     * Creates the mapping.
     *
     * @param prefix the validated prefix (no braces)
     */
    public GateKeys(String prefix) {
        this.prefix = prefix.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The Redis key of {@code key}'s gate record (for operators and tests).
     *
     * @param key the key
     * @return the Redis key
     */
    public byte[] redisKey(IdempotencyKey key) {
        return locate(key).redisKey();
    }

    /** A key's Redis key and identity digest. */
    record Located(byte[] redisKey, byte[] digest) {
    }

    Located locate(IdempotencyKey key) {
        byte[] identity = identity(key);
        byte[] sha = sha256(identity);
        String tag = HexFormat.of().formatHex(sha, 0, 8);
        ByteArrayOutputStream out = new ByteArrayOutputStream(prefix.length + 18 + identity.length);
        out.writeBytes(prefix);
        out.write('{');
        out.writeBytes(tag.getBytes(StandardCharsets.US_ASCII));
        out.write('}');
        out.writeBytes(identity);
        byte[] digest = HexFormat.of().formatHex(sha, 0, 16).getBytes(StandardCharsets.US_ASCII);
        return new Located(out.toByteArray(), digest);
    }

    private static byte[] identity(IdempotencyKey key) {
        byte[] scope = key.scope().getBytes(StandardCharsets.UTF_8);
        byte[] operation = key.operation().getBytes(StandardCharsets.UTF_8);
        byte[] token = key.key().getBytes(StandardCharsets.UTF_8);
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

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required on every Java platform", e);
        }
    }
}
