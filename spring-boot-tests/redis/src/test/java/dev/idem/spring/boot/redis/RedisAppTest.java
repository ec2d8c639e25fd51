package dev.idem.spring.boot.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;
import dev.idem.testsupport.redis.EmbeddedRedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A Spring Boot 4.1 application with only spring-boot-starter-data-redis, Spring MVC and the idem
 * starter runs the Idempotency-Key filter and {@code @Idempotent} on Redis: the store comes from
 * Spring Data Redis' Lettuce connection factory, no Jedis is on the class path, and the records
 * are in Redis where the application's own template sees them.
 */
@Timeout(120)
@SpringBootTest(classes = RedisApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "idem.store.kind=redis",
        "idem.http.routes=/orders/**",
        "idem.http.principal-header=X-Api-Key",
        "spring.data.redis.timeout=10s"})
class RedisAppTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @LocalServerPort
    private int port;
    @Autowired
    private RedisApp.Runs runs;
    @Autowired
    private IdempotencyStore store;
    @Autowired
    private StringRedisTemplate redis;
    @Autowired
    private RedisApp.ChargeService charges;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", () -> EmbeddedRedisServer.HOST);
        registry.add("spring.data.redis.port", EmbeddedRedisServer::shared);
    }

    private HttpResponse<String> post(String path, String key, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .header("X-Api-Key", "tenant-1").POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theApplicationRunsOnBoot41WithLettuceAndWithoutJedis() {
        assertThat(SpringBootVersion.getVersion()).startsWith("4.1.");
        assertThatThrownBy(() -> Class.forName("redis.clients.jedis.UnifiedJedis"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
        assertThat(store.toString()).contains("Lettuce");
    }

    @Test
    void theFilterRunsARouteOnceAndReplaysItFromRedis() throws Exception {
        String key = "k-" + UUID.randomUUID();
        HttpResponse<String> first = post("/orders/7/confirm", key, "{\"qty\":1}");
        HttpResponse<String> again = post("/orders/7/confirm", key, "{\"qty\":1}");
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(again.statusCode()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(runs.of("order-7")).isEqualTo(1);
        assertThat(post("/orders/7/confirm", key, "{\"qty\":2}").statusCode()).isEqualTo(422);
        assertThat(redis.keys("idem:{*")).isNotEmpty();
    }

    @Test
    void anIdempotentMethodRunsOnceAndReplaysFromRedis() {
        String ref = "ref-" + UUID.randomUUID();
        String first = charges.charge(ref, 5);
        assertThat(charges.charge(ref, 5)).isEqualTo(first);
        assertThat(runs.of("charge-" + ref)).isEqualTo(1);
    }
}
