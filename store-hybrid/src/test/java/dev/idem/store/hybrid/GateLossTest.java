package dev.idem.store.hybrid;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.InProgressPolicy;
import dev.idem.store.hybrid.HybridStoreEvent.Type;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.redis.jedis.JedisScriptClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.RestoreParams;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.embedded.RedisServer;

/**
 * The failure no single store has: the gate loses or garbles records while many engines
 * hammer one set of keys. Four engines (two Redis clients, two database pools) send 480 calls
 * over 40 keys from 8 threads; meanwhile, paced by the calls' progress rather than by time,
 * Redis is flushed, killed without persistence and restarted empty on the same port, has
 * in-progress records rewritten to stale ones, records of other keys copied over (foreign),
 * completed records turned back to RELEASED, and is flushed again. Counted from outside the
 * store: every key's work ran exactly once, and every caller got that execution's value.
 */
@Timeout(180)
class GateLossTest {
    private static final int KEYS = 40;
    private static final int THREADS = 8;
    private static final int CALLS_PER_THREAD = 60;
    private static final int SLACK = 16;
    private static final Duration RETRY = Duration.ofMillis(20);
    /** More than every engine's pool of connections to the old server can absorb. */
    private static final int PROBES = 200;
    private static final byte[] PREFIX = HybridIdempotencyStore.DEFAULT_KEY_PREFIX.getBytes(StandardCharsets.UTF_8);

    /** A record as an older state would have it: in progress under an old token, lease ending in 500 ms. */
    private static final String STALE_IN_PROGRESS = "if redis.call('HGET', KEYS[1], 's') then"
            + " local t = redis.call('TIME') redis.call('HDEL', KEYS[1], 'o', 'x', 'p')"
            + " redis.call('HSET', KEYS[1], 's', 'I', 't', '4242', 'l', string.format('%.0f',"
            + " t[1] * 1000 + math.floor(t[2] / 1000) + 500)) end";
    /** A record turned back to RELEASED, as a lost completion would leave it. */
    private static final String STALE_RELEASED = "if redis.call('HGET', KEYS[1], 's') then"
            + " redis.call('HDEL', KEYS[1], 'o', 'x', 'l', 'p') redis.call('HSET', KEYS[1], 's', 'R') end";

    private final int port = GateRedis.freePort();
    private final String scope = "loss-" + UUID.randomUUID();
    private final RecordingListener events = new RecordingListener();
    private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
    private final Map<String, List<String>> answers = new ConcurrentHashMap<>();
    private final AtomicInteger done = new AtomicInteger();
    private int allowed = THREADS * CALLS_PER_THREAD / 8 + SLACK;
    private final List<RedisClient> clients = new ArrayList<>();
    private final List<IdempotencyEngine> engines = new ArrayList<>();
    private final List<String> keys = new ArrayList<>();
    /** Added to the stores' monotonic time: the test, not the machine's speed, says when a retry interval has passed. */
    private final AtomicLong skew = new AtomicLong();
    private volatile RedisServer redis;

    @AfterEach
    void tearDown() throws Exception {
        clients.forEach(RedisClient::close);
        redis.stop();
    }

    @Test
    void aGateThatLosesAndGarblesRecordsNeverCausesADoubleExecutionOrAWrongReplay() throws Exception {
        redis = GateRedis.start(port);
        RedisClient admin = GateRedis.client(port, 2000);
        clients.add(admin);
        for (int i = 0; i < 4; i++) {
            RedisClient gate = GateRedis.client(port, 500);
            clients.add(gate);
            JdbcIdempotencyStore truth = JdbcIdempotencyStore.builder(
                    i % 2 == 0 ? Databases.POSTGRES.dataSource() : Databases.POSTGRES.otherDataSource()).build();
            HybridIdempotencyStore store = HybridIdempotencyStore.builder(JedisScriptClient.of(gate), truth)
                    .retryInterval(RETRY).ticker(() -> System.nanoTime() + skew.get()).listener(events)
                    .build();
            // Leases far longer than the test: a second execution can only come from the store.
            engines.add(IdempotencyEngine.builder().store(store).lease(Duration.ofMinutes(5))
                    .ttl(Duration.ofMinutes(30)).inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(20)))
                    .build());
        }
        for (int k = 0; k < KEYS; k++) {
            keys.add("key-" + k);
            executions.put("key-" + k, new AtomicInteger());
            answers.put("key-" + k, new CopyOnWriteArrayList<>());
        }

        ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
        try {
            List<Future<?>> callers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Random rnd = new Random(31L * t + 7);
                int thread = t;
                callers.add(pool.submit(() -> {
                    for (int i = 0; i < CALLS_PER_THREAD; i++) {
                        awaitAllowed();
                        String k = keys.get(rnd.nextInt(KEYS));
                        answers.get(k).add(call(engines.get((thread + i) % engines.size()), k));
                        synchronized (done) {
                            done.incrementAndGet();
                            done.notifyAll();
                        }
                    }
                    return null;
                }));
            }
            Future<?> chaos = pool.submit(() -> {
                chaos(admin);
                return null;
            });
            for (Future<?> f : callers) {
                f.get(150, TimeUnit.SECONDS);
            }
            chaos.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }

        JdbcIdempotencyStore reader = JdbcIdempotencyStore.builder(Databases.POSTGRES.dataSource()).build();
        for (String k : keys) {
            List<String> seen = answers.get(k);
            if (seen.isEmpty()) {
                assertThat(executions.get(k)).hasValue(0);
                continue;
            }
            assertThat(executions.get(k)).as("executions of %s", k).hasValue(1);
            assertThat(seen).as("answers for %s", k).containsOnly(seen.get(0));
            StoredRecord stored = reader.find(IdempotencyKey.of(scope, "op", k)).orElseThrow();
            assertThat(stored.state()).isEqualTo(RecordState.COMPLETED);
            // The engine's codec wraps the JSON value; the executed value is in it verbatim.
            assertThat(new String(stored.outcome(), StandardCharsets.UTF_8)).contains(seen.get(0));
        }
        String summary = java.util.Arrays.stream(Type.values()).map(t -> t + "=" + events.count(t))
                .collect(java.util.stream.Collectors.joining(", "));
        System.out.println("events: " + summary);
        assertThat(events.count(Type.GATE_CORRECTED)).as("corrections").isPositive();
        assertThat(events.count(Type.GATE_DOWN)).as("times the gate went down").isPositive();
        assertThat(events.count(Type.GATE_UP)).as("times it came back").isPositive();
        assertThat(events.count(Type.ANSWERED_BY_GATE)).as("answers from the gate").isPositive();
    }

    private String call(IdempotencyEngine engine, String k) {
        IdempotencyKey key = IdempotencyKey.of(scope, "op", k);
        while (true) {
            try {
                return engine.execute(key, Map.of("key", k), String.class, ctx -> {
                    executions.get(k).incrementAndGet();
                    return k + "/" + UUID.randomUUID();
                }).value();
            } catch (RequestInProgressException e) {
                // A client retrying after 409: the holder finishes within the wait, or a stale gate record lapses.
                Thread.onSpinWait();
            }
        }
    }

    /**
     * The faults, each once the callers have made some progress since the last one. Callers may
     * run at most {@link #SLACK} calls past the point where a fault is due before it is done, so
     * every fault happens with calls in flight and none is left for after the last call.
     */
    private void chaos(RedisClient admin) throws Exception {
        int total = THREADS * CALLS_PER_THREAD;
        awaitProgress(total / 8);
        admin.flushAll();

        allow(total * 2 / 8);
        awaitProgress(total * 2 / 8);
        // Stale in-progress records: an old token whose lease ends within half a second.
        for (byte[] k : gateKeys(admin, 6)) {
            admin.eval(b(STALE_IN_PROGRESS), List.of(k), List.of());
        }

        allow(total * 3 / 8);
        awaitProgress(total * 3 / 8);
        redis.stop();
        allow(total * 4 / 8);
        awaitProgress(total * 4 / 8);
        redis = GateRedis.start(port);
        probeUntilTheGateIsBack();

        allow(total * 5 / 8);
        awaitProgress(total * 5 / 8);
        // The admin client's pooled connections died with the old server: the first command after
        // the restart may fail on one of them, and the pool drops it.
        for (int i = 0; i < 5; i++) {
            try {
                admin.ping();
                break;
            } catch (redis.clients.jedis.exceptions.JedisConnectionException stale) {
                // next connection
            }
        }
        // Foreign records: other keys' records copied over.
        List<byte[]> some = gateKeys(admin, 8);
        for (int i = 0; i + 1 < some.size(); i += 2) {
            byte[] dump = admin.dump(some.get(i));
            if (dump != null) {
                admin.restore(some.get(i + 1), 0, dump, RestoreParams.restoreParams().replace());
            }
        }

        allow(total * 6 / 8);
        awaitProgress(total * 6 / 8);
        // Completed records turned back to RELEASED (a lost completion, an older snapshot).
        for (byte[] k : gateKeys(admin, 6)) {
            admin.eval(b(STALE_RELEASED), List.of(k), List.of());
        }

        allow(total * 7 / 8);
        awaitProgress(total * 7 / 8);
        admin.flushAll();
        allow(total);
    }

    /**
     * A store tries a gate that went down again only when a call comes a retry interval later,
     * and a call may first meet a pooled connection that died with the old server. Left to the
     * callers, a fast machine ends every remaining call inside one interval and the gate is never
     * seen back. So, before the callers go on, calls from here move each store's time past the
     * interval and go to each engine in turn until one store has found its gate answering again.
     */
    private void probeUntilTheGateIsBack() {
        for (int probe = 0; probe < PROBES && events.count(Type.GATE_UP) == 0; probe++) {
            skew.addAndGet(RETRY.toNanos());
            String k = keys.get(probe % KEYS);
            answers.get(k).add(call(engines.get(probe % engines.size()), k));
        }
        assertThat(events.count(Type.GATE_UP)).as("the gate back within %s probing calls", PROBES).isPositive();
    }

    private void allow(int calls) {
        synchronized (done) {
            allowed = calls + SLACK;
            done.notifyAll();
        }
    }

    private void awaitAllowed() throws InterruptedException {
        synchronized (done) {
            while (done.get() >= allowed) {
                done.wait();
            }
        }
    }

    private void awaitProgress(int calls) throws InterruptedException {
        // Paced by the callers, not by time: a slow machine only makes every phase slower.
        synchronized (done) {
            while (done.get() < calls) {
                done.wait();
            }
        }
    }

    private static List<byte[]> gateKeys(RedisClient admin, int max) {
        ScanResult<byte[]> page = admin.scan(ScanParams.SCAN_POINTER_START.getBytes(StandardCharsets.US_ASCII),
                new ScanParams().match(concat(PREFIX, b("*"))).count(200));
        List<byte[]> keys = new ArrayList<>(page.getResult());
        return keys.subList(0, Math.min(max, keys.size()));
    }


    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
