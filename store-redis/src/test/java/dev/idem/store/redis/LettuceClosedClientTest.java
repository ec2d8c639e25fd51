package dev.idem.store.redis;

import static dev.idem.store.redis.RedisClientFailureTest.refusedEveryCall;
import static dev.idem.store.redis.RedisClientFailureTest.storeError;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Lettuce client the application shut down, before or after the store's first call, and a
 * connection the application closed: every call is a non-retryable store error.
 */
@Timeout(60)
class LettuceClosedClientTest {
    private static final IdempotencyKey OPEN = IdempotencyKey.of("closed", "op", "open");

    @Test
    void aLettuceClientTheApplicationShutDownIsANonRetryableError() {
        // Clients on their own I/O threads: shutting one down stops them.
        RedisClient shutDown = RedisClient.create(LettuceClients.uri(EmbeddedRedis.standalonePort()));
        RedisIdempotencyStore neverConnected = RedisIdempotencyStore.create(LettuceScriptClient.of(shutDown));
        RedisClient shutDownLater = RedisClient.create(LettuceClients.uri(EmbeddedRedis.standalonePort()));
        RedisIdempotencyStore connected = RedisIdempotencyStore.create(LettuceScriptClient.of(shutDownLater));
        connected.find(OPEN);
        shutDown.shutdown();
        shutDownLater.shutdown();
        refusedEveryCall(neverConnected, storeError(false));
        refusedEveryCall(connected, storeError(false, "closed"));
    }

    @Test
    void aConnectionTheApplicationClosedIsANonRetryableError() {
        StatefulRedisConnection<String, String> own = LettuceClients.Standalone.CLIENT.connect();
        RedisIdempotencyStore onClosed = RedisIdempotencyStore.create(LettuceScriptClient.of(own));
        onClosed.find(OPEN);
        own.close();
        refusedEveryCall(onClosed, storeError(false, "closed"));
    }
}
