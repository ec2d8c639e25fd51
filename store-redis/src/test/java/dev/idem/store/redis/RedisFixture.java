package dev.idem.store.redis;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientPauseMode;

/**
 * The test kit's view of a Redis store: two stores on two separate clients (two
 * "processes") on the same server or cluster, sharing one {@link MutableClock} that
 * replaces the server's {@code TIME} in the same scripts. Time passes by moving the clock,
 * never by sleeping, and the kit's default 30 s lease is far longer than any pause of a
 * loaded machine.
 */
final class RedisFixture implements StoreFixture {
    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(System.currentTimeMillis()));
    private final IdempotencyStore store;
    private final IdempotencyStore other;
    /** The servers the stores answer from (empty if unknown): what {@link #holdAnswers()} pauses. */
    private final List<Integer> servers;

    RedisFixture(RedisScriptClient client, RedisScriptClient otherClient) {
        this(client, otherClient, List.of());
    }

    private RedisFixture(RedisScriptClient client, RedisScriptClient otherClient, List<Integer> servers) {
        this.store = RedisIdempotencyStore.builder(client).clock(clock).build();
        this.other = RedisIdempotencyStore.builder(otherClient).clock(clock).build();
        this.servers = servers;
    }

    /** Two stores through {@code client}'s library, on the shared cluster or standalone server. */
    RedisFixture(Client client, boolean cluster) {
        this(client.on(cluster, 0), client.on(cluster, 1),
                cluster ? EmbeddedRedis.clusterPorts() : List.of(EmbeddedRedis.standalonePort()));
    }

    /**
     * Pauses every server the stores answer from ({@code CLIENT PAUSE ... WRITE}: every script is a
     * write, so no store call is answered) until the hold is closed ({@code CLIENT UNPAUSE}).
     */
    @Override
    public AnswersHeld holdAnswers() throws Exception {
        if (servers.isEmpty()) {
            return StoreFixture.super.holdAnswers();
        }
        List<Jedis> admins = new ArrayList<>();
        for (int port : servers) {
            Jedis admin = EmbeddedRedis.admin(port);
            admins.add(admin);
            admin.clientPause(120_000, ClientPauseMode.WRITE);
        }
        return () -> {
            for (Jedis admin : admins) {
                try (admin) {
                    admin.clientUnpause();
                }
            }
        };
    }

    @Override
    public IdempotencyStore store() {
        return store;
    }

    @Override
    public IdempotencyStore otherStore() {
        return other;
    }

    @Override
    public void advance(Duration d) {
        clock.advance(d);
    }

    @Override
    public boolean clockIsSimulated() {
        return true;
    }

    @Override
    public void close() {
        store.close();
        other.close();
    }
}
