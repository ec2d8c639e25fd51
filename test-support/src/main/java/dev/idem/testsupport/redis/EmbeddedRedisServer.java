package dev.idem.testsupport.redis;

import dev.idem.testsupport.FreePorts;
import dev.idem.testsupport.TempDirs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import redis.embedded.RedisServer;

/**
 * Real redis-server processes for the tests, from the binaries embedded-redis ships (Redis 6.2):
 * no persistence unless asked for, loopback only, one temp dir per server (deleted at exit), a
 * free port each. Needs no Redis client, so a test can keep one off its class path. Servers
 * outlive the test that started them unless it stops them; embedded-redis' shutdown hook kills
 * the rest when the JVM exits.
 */
public final class EmbeddedRedisServer {
    /** The address every server binds to. */
    public static final String HOST = "127.0.0.1";

    private EmbeddedRedisServer() {
    }

    /**
     * A port nobody listens on right now.
     *
     * @return the port
     */
    public static int freePort() {
        return FreePorts.next();
    }

    /**
     * Starts a server on {@code port}.
     *
     * @param port the port
     * @param forceStop whether {@link RedisServer#stop()} kills it with SIGKILL (a crash)
     * @param settings further {@code redis.conf} lines, such as {@code "cluster-enabled yes"}
     * @return the started server
     */
    public static RedisServer start(int port, boolean forceStop, String... settings) {
        try {
            Path dir = TempDirs.create("idem-redis-" + port + "-");
            var b = RedisServer.newRedisServer().port(port).bind(HOST)
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .setting("dir " + dir.toAbsolutePath())
                    .onShutdownForceStop(forceStop);
            for (String s : settings) {
                b.setting(s);
            }
            RedisServer server = b.build();
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start redis-server on port " + port, e);
        }
    }

    /**
     * The port of a standalone server shared by every test in this JVM, started on first use.
     *
     * @return the port
     */
    public static int shared() {
        return Shared.PORT;
    }

    private static final class Shared {
        static final int PORT = freePort();

        static {
            start(PORT, true);
        }
    }
}
