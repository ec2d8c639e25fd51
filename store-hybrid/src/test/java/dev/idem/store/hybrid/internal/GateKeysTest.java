package dev.idem.store.hybrid.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.redis.RedisKeyLayout;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The gate's records live where they always did: store-redis's key layout under the gate's
 * prefix, with the identity digest the scripts compare. The expected texts were computed by the
 * gate's own copy of the layout before it used store-redis's, so gate records written by an
 * earlier version are still found.
 */
class GateKeysTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("tenant-1", "charge", "k-42");

    @Test
    void aGateRecordLivesUnderStoreRedisLayoutWithItsIdentityDigest() {
        GateKeys.Located at = new GateKeys("idem:gate:").locate(KEY);

        assertThat(new String(at.redisKey(), StandardCharsets.UTF_8))
                .isEqualTo("idem:gate:{13169832e8da94ee}8:tenant-16:chargek-42");
        assertThat(at.redisKey()).isEqualTo(RedisKeyLayout.withPrefix("idem:gate:").redisKey(KEY));
        assertThat(new String(at.digest(), StandardCharsets.US_ASCII)).isEqualTo("13169832e8da94eecead452b86bc5801");
    }
}
