package dev.idem.store.redis;

import static dev.idem.store.redis.RedisClientFailureTest.refusedEveryCall;
import static dev.idem.store.redis.RedisClientFailureTest.storeError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.RecordState;
import dev.idem.store.redis.spring.SpringDataRedisScriptClient;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The store on the application's Spring Data Redis connection factory, Lettuce (its own
 * connection from the factory's client) or Jedis (a connection borrowed per call) underneath,
 * standalone and cluster; a record written through one is read through the other; a destroyed
 * factory is a non-retryable store error.
 */
@Timeout(60)
class SpringDataRedisScriptClientTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);

    private static IdempotencyKey key() {
        return IdempotencyKey.of("spring-" + UUID.randomUUID(), "op", "k");
    }

    private static void roundTrip(RedisConnectionFactory writer, RedisConnectionFactory reader) {
        try (RedisIdempotencyStore a = RedisIdempotencyStore.create(SpringDataRedisScriptClient.of(writer));
                RedisIdempotencyStore b = RedisIdempotencyStore.create(SpringDataRedisScriptClient.of(reader))) {
            for (int i = 0; i < 6; i++) {
                IdempotencyKey k = key();
                assertThat(a.claim(k, new byte[] {1}, 10 + i, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);
                assertThat(b.claim(k, new byte[] {1}, 20 + i, LEASE, TTL).status()).isEqualTo(Status.EXISTING);
                assertThat(b.complete(k, 10 + i, new byte[] {0, (byte) 0xff}, TTL)).isTrue();
                assertThat(a.find(k).orElseThrow().outcome()).containsExactly(0, 0xff);
            }
        }
    }

    @Test
    void lettuceAndJedisUnderneathShareRecordsStandalone() {
        roundTrip(SpringFactories.LettuceStandalone.FACTORY, SpringFactories.JedisStandalone.FACTORY);
        roundTrip(SpringFactories.JedisStandalone.FACTORY, SpringFactories.LettuceStandalone.FACTORY);
    }

    @Test
    void onALettuceFactoryTheStoreOffersItsNonBlockingFormAndOnAJedisFactoryNot() throws Exception {
        try (RedisIdempotencyStore lettuce = RedisIdempotencyStore.create(
                SpringDataRedisScriptClient.of(SpringFactories.LettuceStandalone.FACTORY));
                RedisIdempotencyStore jedis = RedisIdempotencyStore.create(
                        SpringDataRedisScriptClient.of(SpringFactories.JedisStandalone.FACTORY))) {
            IdempotencyKey k = key();
            assertThat(lettuce.nonBlocking().orElseThrow().claim(k, new byte[] {1}, 1, LEASE, TTL)
                    .toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS).claimed()).isTrue();
            assertThat(jedis.find(k).orElseThrow().fencingToken()).isEqualTo(1);
            assertThat(jedis.nonBlocking()).isEmpty();
        }
    }

    @Test
    void lettuceAndJedisUnderneathShareRecordsOnTheCluster() {
        roundTrip(SpringFactories.LettuceCluster.FACTORY, SpringFactories.JedisCluster.FACTORY);
        roundTrip(SpringFactories.JedisCluster.FACTORY, SpringFactories.LettuceCluster.FACTORY);
    }

    @Test
    void theFactoryIsStartedIfTheContextHasNotYet() {
        LettuceConnectionFactory notStarted = new LettuceConnectionFactory(SpringFactories.standalone());
        notStarted.afterPropertiesSet();
        notStarted.stop();
        try (RedisIdempotencyStore store = RedisIdempotencyStore.create(SpringDataRedisScriptClient.of(notStarted))) {
            IdempotencyKey k = key();
            assertThat(store.claim(k, new byte[] {1}, 1, LEASE, TTL).claimed()).isTrue();
            assertThat(store.find(k).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        } finally {
            notStarted.destroy();
        }
    }

    @Test
    void aDestroyedFactoryIsANonRetryableError() {
        JedisConnectionFactory jedis = SpringFactories.started(new JedisConnectionFactory(SpringFactories.standalone()));
        LettuceConnectionFactory lettuce = SpringFactories.started(
                new LettuceConnectionFactory(SpringFactories.standalone()));
        RedisIdempotencyStore onJedis = RedisIdempotencyStore.create(SpringDataRedisScriptClient.of(jedis));
        RedisIdempotencyStore onLettuce = RedisIdempotencyStore.create(SpringDataRedisScriptClient.of(lettuce));
        onJedis.find(key());
        onLettuce.find(key());
        jedis.destroy();
        lettuce.destroy();
        refusedEveryCall(onJedis, storeError(false));
        refusedEveryCall(onLettuce, storeError(false));
    }

    @Test
    void anotherKindOfFactoryIsRefusedWithTheReason() {
        RedisConnectionFactory other = (RedisConnectionFactory) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {RedisConnectionFactory.class}, (p, m, a) -> null);
        assertThatThrownBy(() -> SpringDataRedisScriptClient.of(other)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("LettuceConnectionFactory").hasMessageContaining("RedisScriptClient");
    }
}
