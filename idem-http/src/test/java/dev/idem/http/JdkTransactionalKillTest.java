package dev.idem.http;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.h2.tools.Server;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The transactional contract on the JDK server with real crashes: the server
 * ({@link TransactionalJdkServer}) is a child JVM on an H2 database this JVM serves over TCP, and
 * a crash is {@code kill -9} of that child ({@link Process#destroyForcibly}, SIGKILL) once it
 * reached the crash point; the database sees its connection die, and a new child takes over.
 */
class JdkTransactionalKillTest extends AbstractTransactionalHttpContract {
    private static Server database;
    private static String url;
    private static Jdbi jdbi;
    private static Child child;
    private static int started;

    /** One server process and the lines it printed. */
    private record Child(Process process, BlockingQueue<String> lines, Http http) {
    }

    @BeforeAll
    static void start() throws Exception {
        JdbcDataSource local = new JdbcDataSource();
        local.setURL("jdbc:h2:mem:jdk-tx-kill;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        TransactionalApp.createTables(local);
        jdbi = Jdbi.create(local);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        database = Server.createTcpServer("-tcpPort", Integer.toString(port)).start();
        url = "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:jdk-tx-kill;LOCK_TIMEOUT=10000";
        child = launch();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (child != null) {
            child.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        database.stop();
    }

    private static Child launch() throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        File log = new File("target/jdk-tx-server-" + (++started) + ".log");
        Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                TransactionalJdkServer.class.getName(), url).redirectError(log).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // The child died.
            }
        }, "jdk-tx-server-output");
        reader.setDaemon(true);
        reader.start();
        String listening = await(lines, "LISTENING ", process, log);
        return new Child(process, lines, new Http("http://127.0.0.1:" + listening.substring("LISTENING ".length())));
    }

    private static String await(BlockingQueue<String> lines, String prefix, Process process, File log)
            throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
            if (line == null && !process.isAlive()) {
                throw new AssertionError("the server JVM died; see " + log.getAbsolutePath());
            }
        }
        throw new AssertionError("the server JVM never printed '" + prefix + "'; see " + log.getAbsolutePath());
    }

    @Override
    Http http() {
        return child.http();
    }

    @Override
    int effects(String key) {
        return TransactionalApp.effects(jdbi, key);
    }

    @Override
    void awaitCrashAndRestart() throws Exception {
        await(child.lines(), "CRASHED ", child.process(), new File("target/jdk-tx-server-" + started + ".log"));
        child.process().destroyForcibly();
        if (!child.process().waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("kill -9 did not end the server JVM");
        }
        child = launch();
    }
}
