package dev.idem.store.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.redis.RedisKeyLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reply parsing that avoids a String per number, and the cache of derived record keys. */
class RepliesAndKeysTest {

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void integersInBulkTextParseLikeLongParseLong() {
        for (String n : List.of("0", "7", "-1", "00012", "1732000000000", "9223372036854775807",
                "-9223372036854775808", "-9223372036854775807")) {
            assertThat(Replies.integer(ascii(n), "n")).as(n).isEqualTo(Long.parseLong(n));
        }
        assertThat(Replies.integer(42L, "n")).isEqualTo(42L);
    }

    @Test
    void anythingElseInBulkTextIsMalformed() {
        for (String bad : List.of("", "-", "+1", "1.5", "12a", " 1", "9223372036854775808", "-9223372036854775809",
                "99999999999999999999", "123456789012345678901")) {
            assertThatThrownBy(() -> Replies.integer(ascii(bad), "n")).as(bad)
                    .isInstanceOf(Replies.MalformedReplyException.class).hasMessageContaining("expected an integer");
        }
    }

    @Test
    void aCachedRecordKeyIsTheComputedOneAndCollidingKeysStayApart() {
        RedisKeyLayout keys = RedisKeyLayout.withPrefix("idem:");
        IdempotencyKey a = IdempotencyKey.of("s", "op", "a");
        byte[] first = keys.redisKey(a);
        assertThat(keys.redisKey(IdempotencyKey.of("s", "op", "a"))).isSameAs(first);
        assertThat(first).isEqualTo(RedisKeyLayout.withPrefix("idem:").redisKey(a));
        // Many keys share each of the cache's slots: every one still maps to its own record key.
        RedisKeyLayout fresh = RedisKeyLayout.withPrefix("idem:");
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 5000; i++) {
                IdempotencyKey k = IdempotencyKey.of("s", "op", "k" + i);
                byte[] expected = RedisKeyLayout.withPrefix("idem:").redisKey(k);
                assertThat(Arrays.equals(keys.redisKey(k), expected)).as("key %s", k).isTrue();
                assertThat(Arrays.equals(fresh.redisKey(k), expected)).isTrue();
            }
        }
    }
}
