package dev.idem.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.store.redis.RedisIdempotencyStore;
import dev.idem.store.redis.RedisScriptClient;
import dev.idem.store.redis.jedis.JedisScriptClient;
import dev.idem.testsupport.redis.EmbeddedRedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis store from the client the application already has, against a real redis-server:
 * Spring Data Redis' connection factory with Lettuce (Boot's default) or Jedis underneath, a
 * Lettuce or Jedis client bean, or the application's own script client; each writes its records
 * where the others (and Spring Data Redis itself) see them.
 */
@Timeout(120)
class RedisStoreAutoConfigurationTest {
    private static final int PORT = EmbeddedRedisServer.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class))
            .withPropertyValues("idem.purge.enabled=false", "idem.store.kind=redis");

    private final ApplicationContextRunner springDataRedis = runner
            .withConfiguration(AutoConfigurations.of(RedisAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + EmbeddedRedisServer.HOST, "spring.data.redis.port=" + PORT,
                    "spring.data.redis.timeout=2s");

    /** Runs the engine once and again under one key; the second call replays, and Redis holds the record. */
    @SuppressWarnings("deprecation") // JedisPooled: the client of Boot 3.5's Jedis line
    private static void storesAndReplaysOnRedis(ApplicationContext ctx, String clientLibrary) {
        IdempotencyStore store = ctx.getBean(IdempotencyStore.class);
        assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
        assertThat(store.toString()).contains(clientLibrary);
        IdempotencyEngine engine = ctx.getBean(IdempotencyEngine.class);
        IdempotencyKey k = IdempotencyKey.of("boot-" + UUID.randomUUID(), "op", "k");
        AtomicInteger runs = new AtomicInteger();
        Result<Integer> first = engine.execute(k, Map.of("a", 1), Integer.class, c -> runs.incrementAndGet());
        Result<Integer> again = engine.execute(k, Map.of("a", 1), Integer.class, c -> runs.incrementAndGet());
        assertThat(first.replayed()).isFalse();
        assertThat(again.replayed()).isTrue();
        assertThat(again.value()).isEqualTo(1);
        try (UnifiedJedis raw = new JedisPooled(new HostAndPort(EmbeddedRedisServer.HOST, PORT),
                redis.clients.jedis.DefaultJedisClientConfig.builder().build())) {
            assertThat(raw.keys("app:{*")).isNotEmpty();
        }
    }

    @Test
    void springDataRedisOnLettuceGivesTheRedisStoreWithoutASecondClient() {
        springDataRedis.withPropertyValues("idem.store.redis.prefix=app:").run(ctx -> {
            assertThat(ctx).hasNotFailed();
            storesAndReplaysOnRedis(ctx, "Lettuce");
            // The application's own use of Redis goes on beside idem's.
            StringRedisTemplate template = new StringRedisTemplate(
                    ctx.getBean(org.springframework.data.redis.connection.RedisConnectionFactory.class));
            template.opsForValue().set("app-own-key", "v");
            assertThat(template.opsForValue().get("app-own-key")).isEqualTo("v");
        });
    }

    @Test
    void springDataRedisOnJedisGivesTheRedisStore() {
        springDataRedis.withPropertyValues("idem.store.redis.prefix=app:", "spring.data.redis.client-type=jedis")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    storesAndReplaysOnRedis(ctx, "Jedis");
                });
    }

    @Test
    void aLettuceClientBeanGivesTheRedisStore() {
        runner.withBean(RedisClient.class,
                        () -> RedisClient.create(RedisURI.create("redis://" + EmbeddedRedisServer.HOST + ":" + PORT)),
                        b -> b.setDestroyMethodName("shutdown"))
                .withPropertyValues("idem.store.redis.prefix=app:")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    storesAndReplaysOnRedis(ctx, "Lettuce");
                });
    }

    @Test
    @SuppressWarnings("deprecation") // JedisPooled: the client of Boot 3.5's Jedis line
    void aClientBeanOfTheApplicationWinsOverTheConnectionFactory() {
        springDataRedis.withBean(UnifiedJedis.class, () -> new JedisPooled(EmbeddedRedisServer.HOST, PORT),
                        b -> b.setDestroyMethodName("close"))
                .withPropertyValues("idem.store.redis.prefix=app:")
                .run(ctx -> storesAndReplaysOnRedis(ctx, "Jedis"));
        springDataRedis.withBean(RedisScriptClient.class, () -> JedisScriptClient.of(
                        new JedisPooled(EmbeddedRedisServer.HOST, PORT)))
                .withPropertyValues("idem.store.redis.prefix=app:")
                .run(ctx -> assertThat(ctx.getBean(IdempotencyStore.class).toString()).contains("Jedis JedisPooled"));
    }
}
