package dev.idem.store.hybrid.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.redis.RedisKeyLayout;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Where a key's gate record lives (store-redis's {@link RedisKeyLayout}, under the gate's prefix)
 * and the digest of its identity stored inside it: the first 16 bytes of the identity's SHA-256,
 * in hex. The digest in the record lets a script tell a record copied from another key (foreign)
 * from this key's own.
 */
public final class GateKeys {
    private static final int DIGEST_BYTES = 16;

    private final RedisKeyLayout layout;

    /**
     * Creates the mapping.
     *
     * @param prefix the validated prefix (no braces)
     */
    public GateKeys(String prefix) {
        this.layout = RedisKeyLayout.withPrefix(prefix);
    }

    /**
     * The Redis key of {@code key}'s gate record (for operators and tests).
     *
     * @param key the key
     * @return the Redis key
     */
    public byte[] redisKey(IdempotencyKey key) {
        return layout.redisKey(key);
    }

    /** A key's Redis key and identity digest. */
    record Located(byte[] redisKey, byte[] digest) {
    }

    Located locate(IdempotencyKey key) {
        byte[] digest = HexFormat.of().formatHex(layout.identitySha256(key), 0, DIGEST_BYTES)
                .getBytes(StandardCharsets.US_ASCII);
        return new Located(layout.redisKey(key), digest);
    }
}
