package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.store.redis.RedisKeyLayout;
import dev.idem.store.redis.jedis.JedisScriptClient;
import dev.idem.store.redis.lettuce.LettuceScriptClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Bad clients and a misbehaving deployment, through each client library: a closed client, wrong
 * credentials, missing permissions, a standalone client on a cluster node, a cluster whose nodes
 * redirect a slot to each other forever, the script cache flushed while work runs. Each is a
 * typed store error that says whether a retry may help, never a wrong answer, and never a second
 * run of the work.
 */
@Timeout(120)
class RedisClientFailureTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final byte[] FP = {3};

    private final String scope = "failure-" + UUID.randomUUID();

    private IdempotencyKey key(String token) {
        return IdempotencyKey.of(scope, "op", token);
    }

    static Consumer<Throwable> storeError(boolean retryable, String... inMessage) {
        return e -> {
            assertThat(e).isInstanceOf(StoreUnavailableException.class);
            assertThat(((StoreUnavailableException) e).retryable()).as("retryable: %s", e).isEqualTo(retryable);
            for (String s : inMessage) {
                assertThat(e).hasMessageContaining(s);
            }
        };
    }

    static void refusedEveryCall(IdempotencyStore store, Consumer<Throwable> check) {
        IdempotencyKey k = IdempotencyKey.of("refused-" + UUID.randomUUID(), "op", "k");
        List<ThrowingCallable> calls = List.of(() -> store.claim(k, FP, 1, LEASE, TTL), () -> store.find(k),
                () -> store.complete(k, 1, new byte[] {1}, TTL), () -> store.release(k, 1),
                () -> store.extendLease(k, 1, LEASE), () -> store.checkpoint(k, 1, new byte[] {1}));
        for (ThrowingCallable call : calls) {
            assertThatThrownBy(call).satisfies(check);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void aClosedStoreRefusesEveryCall(Client client) {
        RedisIdempotencyStore store = RedisIdempotencyStore.create(client.standalone(0));
        store.close();
        refusedEveryCall(store, storeError(false, "closed"));
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void wrongCredentialsAndMissingPermissionsAreNonRetryable(Client client) {
        int port = EmbeddedRedis.standalonePort();
        try (Jedis admin = EmbeddedRedis.admin(port)) {
            admin.aclSetUser("idem-pw", "reset", "on", ">right", "~*", "+@all");
            admin.aclSetUser("idem-noscript", "reset", "on", ">right", "~*", "+@all", "-@scripting");
        }
        try (RedisIdempotencyStore wrongPassword = RedisIdempotencyStore.create(withUser(client, port, "idem-pw",
                "wrong"));
                RedisIdempotencyStore noScripts = RedisIdempotencyStore.create(withUser(client, port, "idem-noscript",
                        "right"))) {
            // The server's refusal is final; a connect that broke off before the refusal arrived (the
            // server closing first, a handshake slower than the timeout on a loaded machine) is a
            // connection failure like any other.
            AtomicInteger refusals = new AtomicInteger();
            refusedEveryCall(wrongPassword, e -> {
                assertThat(e).isInstanceOf(StoreUnavailableException.class);
                boolean refused = e.getMessage().contains("WRONGPASS");
                assertThat(((StoreUnavailableException) e).retryable()).as("retryable: %s", e).isEqualTo(!refused);
                if (refused) {
                    assertThat(e).hasMessageContaining("access denied");
                    refusals.incrementAndGet();
                }
            });
            assertThat(refusals).as("calls that carried the server's refusal").hasPositiveValue();
            refusedEveryCall(noScripts, storeError(false, "access denied", "NOPERM"));
        }
    }

    private static RedisScriptClient withUser(Client client, int port, String user, String password) {
        if (client == Client.JEDIS) {
            return JedisScriptClient.owning(JedisClients.standalone(new HostAndPort(EmbeddedRedis.HOST, port),
                    DefaultJedisClientConfig.builder().user(user).password(password).connectionTimeoutMillis(1000)
                            .socketTimeoutMillis(2000).build()));
        }
        RedisURI uri = RedisURI.builder().withHost(EmbeddedRedis.HOST).withPort(port)
                .withTimeout(LettuceClients.TIMEOUT).withAuthentication(user, password.toCharArray()).build();
        return LettuceScriptClient.owning(RedisClient.create(LettuceClients.RESOURCES, uri));
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void aStandaloneClientOnAClusterNodeIsAMisconfigurationNotATransientError(Client client) {
        int master0 = EmbeddedRedis.clusterPorts().get(0);
        IdempotencyKey elsewhere = keyOnMaster(1, "slot-");
        try (RedisIdempotencyStore store = RedisIdempotencyStore.create(client.ownClient(master0))) {
            assertThatThrownBy(() -> store.claim(elsewhere, FP, 1, LEASE, TTL))
                    .satisfies(storeError(false, "MOVED", "Cluster"));
            assertThatThrownBy(() -> store.find(elsewhere)).satisfies(storeError(false, "MOVED"));
        }
    }

    private IdempotencyKey keyOnMaster(int master, String prefix) {
        return keyOnMaster(scope, master, prefix);
    }

    static IdempotencyKey keyOnMaster(String scope, int master, String prefix) {
        RedisKeyLayout keys = RedisKeyLayout.withPrefix(RedisIdempotencyStore.DEFAULT_KEY_PREFIX);
        for (int i = 0;; i++) {
            IdempotencyKey k = IdempotencyKey.of(scope, "op", prefix + i);
            if (EmbeddedRedis.masterOfSlot(JedisClusterCRC16.getSlot(keys.redisKey(k)), 3) == master) {
                return k;
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void aRedirectStormIsARetryableErrorThatWritesNothing(Client client) throws InterruptedException {
        redirectStorm(scope, RedisIdempotencyStore.create(client.cluster(0)));
    }

    /** A slot redirected back and forth between two masters: {@code store} fails retryably and writes nothing. */
    static void redirectStorm(String scope, IdempotencyStore store) throws InterruptedException {
        List<Integer> ports = EmbeddedRedis.clusterPorts();
        try (Jedis master0 = EmbeddedRedis.admin(ports.get(0)); Jedis master1 = EmbeddedRedis.admin(ports.get(1))) {
            // A slot of master 0 that holds no key yet (Redis refuses to hand over a slot with keys).
            IdempotencyKey k;
            int slot;
            int attempt = 0;
            do {
                k = keyOnMaster(scope, 0, "storm-" + attempt++ + "-");
                slot = JedisClusterCRC16.getSlot(
                        RedisKeyLayout.withPrefix(RedisIdempotencyStore.DEFAULT_KEY_PREFIX).redisKey(k));
            } while (master0.clusterCountKeysInSlot(slot) > 0);
            IdempotencyKey key = k;
            stormOn(store, key, slot, ports, master0, master1);
            assertThat(RedisKilledMidRunTest.untilReachable(() -> store.claim(key, FP, 1, LEASE, TTL)).status()).isEqualTo(Status.ACQUIRED);
            assertThat(store.find(key).orElseThrow().fencingToken()).isEqualTo(1);
        }
    }

    private static void stormOn(IdempotencyStore store, IdempotencyKey k, int slot, List<Integer> ports,
            Jedis master0, Jedis master1) {
        String owner = master0.clusterMyId();
        // Master 0 now sends the slot to master 1, which still sends it back to master 0.
        master0.clusterSetSlotNode(slot, master1.clusterMyId());
        try {
            assertThatThrownBy(() -> store.claim(k, FP, 1, LEASE, TTL)).satisfies(storeError(true));
            assertThatThrownBy(() -> store.complete(k, 1, new byte[] {1}, TTL)).satisfies(storeError(true));
            for (int port : ports) {
                try (Jedis node = EmbeddedRedis.admin(port)) {
                    assertThat(node.clusterCountKeysInSlot(slot)).as("records on %s", port).isZero();
                }
            }
        } finally {
            master0.clusterSetSlotNode(slot, owner);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTestOnBothTopologies")
    void theScriptCacheFlushedWhileTheWorkRunsIsReloadedWithoutASecondRun(Client client, boolean cluster) {
        List<Integer> ports = cluster ? EmbeddedRedis.clusterPorts() : List.of(EmbeddedRedis.standalonePort());
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(RedisIdempotencyStore.create(client.on(cluster, 0))).lease(LEASE).ttl(TTL).build();
        IdempotencyEngine other = IdempotencyEngine.builder()
                .store(RedisIdempotencyStore.create(client.on(cluster, 1))).lease(LEASE).ttl(TTL).build();
        AtomicInteger runs = new AtomicInteger();
        List<Result<String>> results = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            IdempotencyKey k = key("flush-" + i);
            results.add(engine.execute(k, Map.of("i", i), String.class, ctx -> {
                for (int port : ports) {
                    try (Jedis node = EmbeddedRedis.admin(port)) {
                        node.scriptFlush();
                    }
                }
                return "done-" + runs.incrementAndGet();
            }));
            Result<String> replay = other.execute(k, Map.of("i", i), String.class, ctx -> "again-" + runs.incrementAndGet());
            assertThat(replay.replayed()).isTrue();
            assertThat(replay.value()).isEqualTo(results.get(i).value());
        }
        assertThat(runs).hasValue(6);
        assertThat(results).allSatisfy(r -> assertThat(r.stored()).isTrue());
    }

    @ParameterizedTest
    @MethodSource("dev.idem.store.redis.Client#underTest")
    void resp3RepliesReadAsRespTwoDid(Client client) {
        int port = EmbeddedRedis.standalonePort();
        RedisScriptClient scripts;
        // The connection speaks RESP3: a script that replies in RESP3 sends booleans, which RESP2 carries
        // as nil and 1. (The store's scripts keep RESP2 replies, so RESP3 shows there as its own null.)
        if (client == Client.JEDIS) {
            UnifiedJedis jedis = JedisClients.standalone(new HostAndPort(EmbeddedRedis.HOST, port),
                    DefaultJedisClientConfig.builder().protocol(redis.clients.jedis.RedisProtocol.RESP3).build());
            assertThat(jedis.eval("redis.setresp(3); return {false, true}")).isEqualTo(List.of(false, true));
            scripts = JedisScriptClient.owning(jedis);
        } else {
            RedisClient lettuce = LettuceClients.client(port);
            try (StatefulRedisConnection<String, String> c = lettuce.connect()) {
                Object reply = c.sync().eval("redis.setresp(3); return {false, true}", ScriptOutputType.OBJECT);
                assertThat(reply).isEqualTo(List.of(false, true));
            }
            scripts = LettuceScriptClient.owning(lettuce);
        }
        try (RedisIdempotencyStore store = RedisIdempotencyStore.create(scripts)) {
            IdempotencyKey k = key("resp3");
            // Lua false inside the claim's and find's replies comes back as RESP3 null.
            assertThat(store.claim(k, FP, 5, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);
            assertThat(store.claim(k, FP, 5, LEASE, TTL).status()).isEqualTo(Status.ACQUIRED);
            assertThat(store.claim(k, new byte[] {4}, 6, LEASE, TTL).record().fingerprint()).containsExactly(FP);
            assertThat(store.checkpoint(k, 5, new byte[] {8})).isTrue();
            assertThat(store.extendLease(k, 5, LEASE)).isPresent();
            assertThat(store.extendLease(k, 6, LEASE)).isEmpty();
            assertThat(store.find(k).orElseThrow().journal()).containsExactly(8);
            assertThat(store.complete(k, 5, new byte[0], TTL)).isTrue();
            assertThat(store.claim(k, FP, 7, LEASE, TTL).record().outcome()).isEmpty();
            assertThat(store.find(k).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
            assertThat(store.release(k, 5)).isFalse();
            assertThat(store.find(key("absent"))).isEmpty();
        }
    }
}
