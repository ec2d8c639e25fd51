package dev.idem.store.redis;

import static dev.idem.store.redis.RedisClientFailureTest.refusedEveryCall;
import static dev.idem.store.redis.RedisClientFailureTest.storeError;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.tck.NonBlockingView;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * A Lettuce client the application shut down, before or after the store's first call, and a
 * connection the application closed: every call is a non-retryable store error, through the
 * blocking form and through the non-blocking form's stages.
 */
@Timeout(60)
class LettuceClosedClientTest {
    private static final IdempotencyKey OPEN = IdempotencyKey.of("closed", "op", "open");

    /** {@code store}, or the view of its non-blocking form (which fails the test if a call throws instead of failing its stage). */
    static IdempotencyStore form(RedisIdempotencyStore store, boolean nonBlocking) {
        return nonBlocking ? NonBlockingView.of(store) : store;
    }

    @ParameterizedTest(name = "non-blocking form: {0}")
    @ValueSource(booleans = {false, true})
    void aLettuceClientTheApplicationShutDownIsANonRetryableError(boolean nonBlocking) {
        // Clients on their own I/O threads: shutting one down stops them.
        RedisClient shutDown = RedisClient.create(LettuceClients.uri(EmbeddedRedis.standalonePort()));
        RedisIdempotencyStore neverConnected = RedisIdempotencyStore.create(LettuceScriptClient.of(shutDown));
        RedisClient shutDownLater = RedisClient.create(LettuceClients.uri(EmbeddedRedis.standalonePort()));
        RedisIdempotencyStore connected = RedisIdempotencyStore.create(LettuceScriptClient.of(shutDownLater));
        connected.find(OPEN);
        shutDown.shutdown();
        shutDownLater.shutdown();
        refusedEveryCall(form(neverConnected, nonBlocking), storeError(false));
        refusedEveryCall(form(connected, nonBlocking), storeError(false, "closed"));
    }

    @ParameterizedTest(name = "non-blocking form: {0}")
    @ValueSource(booleans = {false, true})
    void aConnectionTheApplicationClosedIsANonRetryableError(boolean nonBlocking) {
        StatefulRedisConnection<String, String> own = LettuceClients.Standalone.CLIENT.connect();
        RedisIdempotencyStore onClosed = RedisIdempotencyStore.create(LettuceScriptClient.of(own));
        onClosed.find(OPEN);
        own.close();
        refusedEveryCall(form(onClosed, nonBlocking), storeError(false, "closed"));
    }
}
