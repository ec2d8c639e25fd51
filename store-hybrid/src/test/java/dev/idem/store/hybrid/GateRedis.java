package dev.idem.store.hybrid;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.embedded.RedisServer;

/**
 * Real redis-server processes for the gate, from the binaries embedded-redis ships (Redis
 * 6.2): no persistence, loopback only. The shared server is started once per JVM and killed
 * by embedded-redis' shutdown hook; tests that kill or pause Redis start their own.
 */
final class GateRedis {
    static final String HOST = "127.0.0.1";

    private GateRedis() {
    }

    static JedisClientConfig clientConfig(int socketTimeoutMillis) {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(1000).socketTimeoutMillis(socketTimeoutMillis)
                .build();
    }

    static RedisClient client(int port, int socketTimeoutMillis) {
        return RedisClient.builder().hostAndPort(HOST, port).clientConfig(clientConfig(socketTimeoutMillis)).build();
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A started server on {@code port} that {@link RedisServer#stop()} kills with SIGKILL (a crash). */
    static RedisServer start(int port) {
        try {
            Path dir = Files.createTempDirectory("idem-gate-" + port + "-");
            RedisServer server = RedisServer.newRedisServer().port(port).bind(HOST)
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .setting("dir " + dir.toAbsolutePath())
                    .onShutdownForceStop(true)
                    .build();
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start redis-server on port " + port, e);
        }
    }

    /** Two clients on the shared server (two "processes"), made once per JVM. */
    static final class Shared {
        static final int PORT = freePort();
        static final RedisClient A;
        static final RedisClient B;

        static {
            start(PORT);
            A = client(PORT, 2000);
            B = client(PORT, 2000);
        }

        private Shared() {
        }
    }
}
