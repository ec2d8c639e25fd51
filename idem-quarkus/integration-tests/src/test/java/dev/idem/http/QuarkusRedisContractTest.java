package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;
import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

/**
 * The servlet filter's HTTP contract, unchanged, against a Quarkus REST application started by
 * {@code @QuarkusTest}, on a real Redis server (the one {@code quarkus.redis.hosts} names);
 * non-blocking resource methods, so idem's filters run on the event loop and suspend the request
 * instead of waiting.
 */
@QuarkusTest
@TestProfile(Backends.RedisProfile.class)
class QuarkusRedisContractTest extends AbstractQuarkusContract {
    @Test
    void theStoreIsBuiltForTheApplicationsRedis() {
        assertThat(Arc.container().instance(IdempotencyStore.class).get()).isInstanceOf(RedisIdempotencyStore.class);
    }

    @Test
    void resourceMethodsAreReachedOnTheEventLoop() throws Exception {
        http().post("/api/charges", "{\"amount\":1}", "Idempotency-Key", key(), "X-User", "loop");

        assertThat(QuarkusContractApp.HANDLER_THREADS).filteredOn(t -> t.startsWith("request:")).isNotEmpty()
                .allSatisfy(t -> assertThat(t).contains("vert.x-eventloop"));
    }
}
