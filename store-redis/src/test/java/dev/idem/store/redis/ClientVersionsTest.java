package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * The suites run once on the versions the module builds with and again on the Jedis and Lettuce
 * versions the supported Spring Boot lines manage (the pom's surefire executions swap the jars):
 * this checks each run really has the versions it names.
 */
class ClientVersionsTest {
    private static String jarOf(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).getFileName().toString();
    }

    @Test
    void theClientsOnTheClassPathAreTheOnesThisRunNames() throws Exception {
        assertThat(jarOf(UnifiedJedis.class)).isEqualTo("jedis-" + System.getProperty("idem.test.jedis.version") + ".jar");
        assertThat(jarOf(RedisClient.class))
                .isEqualTo("lettuce-core-" + System.getProperty("idem.test.lettuce.version") + ".jar");
    }
}
