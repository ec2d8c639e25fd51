package dev.idem.http;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A server of the transactional suite run as a child JVM on the test's class path, for real
 * crashes: its main class prints {@code LISTENING <port>} once it serves and {@code CRASHED <point>}
 * when a request reaches its crash point, where it stops until {@link #kill()} ends it with
 * {@code kill -9} ({@link Process#destroyForcibly}, SIGKILL); the database sees its connections die.
 * What the child writes to its standard error is in {@code target/<name>-<n>.log}.
 */
final class ChildServer {
    private static int started;

    private final Process process;
    private final BlockingQueue<String> lines;
    private final File log;
    private final Http http;

    private ChildServer(Process process, BlockingQueue<String> lines, File log, Http http) {
        this.process = process;
        this.lines = lines;
        this.log = log;
        this.http = http;
    }

    /**
     * Starts {@code main} in a new JVM with {@code args} and waits until it serves.
     *
     * @param name the log file's name
     * @param main the server's main class
     * @param args its arguments
     * @return the running server
     */
    static ChildServer launch(String name, Class<?> main, String... args) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        File log = new File("target/" + name + "-" + nextNumber() + ".log");
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectError(log).start();
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
        }, name + "-output");
        reader.setDaemon(true);
        reader.start();
        try {
            String listening = await(process, lines, log, "LISTENING ");
            return new ChildServer(process, lines, log,
                    new Http("http://127.0.0.1:" + listening.substring("LISTENING ".length())));
        } catch (AssertionError | InterruptedException e) {
            process.destroyForcibly();
            throw e;
        }
    }

    private static synchronized int nextNumber() {
        return ++started;
    }

    /** The client pointed at this server. */
    Http http() {
        return http;
    }

    /** Waits until a request reached its crash point (the child printed {@code CRASHED}). */
    void awaitCrash() throws InterruptedException {
        await(process, lines, log, "CRASHED ");
    }

    /** Ends the child with SIGKILL and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("kill -9 did not end the server JVM");
        }
    }

    private static String await(Process process, BlockingQueue<String> lines, File log, String prefix)
            throws InterruptedException {
        // Bounded, not an expectation: a Spring Boot child on a loaded 2-core machine starts in tens of seconds.
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
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
}
