package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.redis.RedisKeyLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/** Where records land in a cluster: decided by the store's own hash tag, spread over all masters. */
@Timeout(60)
class RedisClusterLayoutTest {
    @Test
    void theSlotIsPickedByTheStoresTagNotByUserText() {
        RedisKeyLayout keys = RedisKeyLayout.withPrefix("idem:");
        IdempotencyKey k = IdempotencyKey.of("{tenant}", "op{x}", "{k}");
        byte[] rk = keys.redisKey(k);
        String text = new String(rk, StandardCharsets.UTF_8);
        String tag = text.substring(text.indexOf('{') + 1, text.indexOf('}'));
        assertThat(text).startsWith("idem:{" + tag + "}");
        assertThat(tag).matches("[0-9a-f]{16}");
        assertThat(JedisClusterCRC16.getSlot(rk)).isEqualTo(JedisClusterCRC16.getSlot(tag));
    }

    @Test
    void recordsOfOneTenantSpreadOverEveryMaster() {
        RedisKeyLayout keys = RedisKeyLayout.withPrefix("idem:");
        Set<Integer> masters = new HashSet<>();
        int masterCount = EmbeddedRedis.clusterPorts().size();
        for (int i = 0; i < 60; i++) {
            // User text with braces must not pin every record of the tenant to one slot.
            int slot = JedisClusterCRC16.getSlot(keys.redisKey(IdempotencyKey.of("{tenant-1}", "{op}", "k" + i)));
            masters.add(EmbeddedRedis.masterOfSlot(slot, masterCount));
        }
        assertThat(masters).hasSize(masterCount);
    }

    @Test
    void storesOnTheClusterReachEveryMaster() {
        RedisIdempotencyStore store = RedisIdempotencyStore.create(Client.LETTUCE.cluster(0));
        String scope = "layout-" + UUID.randomUUID();
        for (int i = 0; i < 30; i++) {
            IdempotencyKey k = IdempotencyKey.of(scope, "op", "k" + i);
            store.claim(k, new byte[] {1}, i, Duration.ofSeconds(30), Duration.ofMinutes(1));
            assertThat(store.complete(k, i, new byte[] {2}, Duration.ofMinutes(1))).isTrue();
        }
        int nodesHoldingRecords = 0;
        int records = 0;
        for (int port : EmbeddedRedis.clusterPorts()) {
            try (Jedis node = new Jedis(new HostAndPort(EmbeddedRedis.HOST, port), EmbeddedRedis.clientConfig())) {
                int here = node.keys("*" + scope + "*").size();
                records += here;
                nodesHoldingRecords += here > 0 ? 1 : 0;
            }
        }
        assertThat(records).isEqualTo(30);
        assertThat(nodesHoldingRecords).isEqualTo(EmbeddedRedis.clusterPorts().size());
    }
}
