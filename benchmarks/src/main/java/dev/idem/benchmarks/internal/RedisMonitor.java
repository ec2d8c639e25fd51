package dev.idem.benchmarks.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Counts the commands clients send to a Redis server, as the server sees them: a
 * {@code MONITOR} connection reports every executed command, and lines attributed to
 * {@code lua} (commands a script runs inside the server) are not round trips. To know that
 * every earlier command has been reported, {@link #total()} sends an {@code ECHO} marker on
 * a connection of its own and reads until the marker shows up (the monitor reports in
 * execution order).
 */
final class RedisMonitor implements TripCounter, AutoCloseable {
    private static final long WAIT_SECONDS = 10;

    private final Socket monitor;
    private final Socket marker;
    private final BufferedReader markerIn;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Thread reader;
    private long total;

    RedisMonitor(String host, int port) {
        try {
            monitor = new Socket(host, port);
            marker = new Socket(host, port);
            markerIn = new BufferedReader(new InputStreamReader(marker.getInputStream(), StandardCharsets.UTF_8));
            BufferedReader in = new BufferedReader(new InputStreamReader(monitor.getInputStream(),
                    StandardCharsets.UTF_8));
            send(monitor.getOutputStream(), "MONITOR");
            String ok = in.readLine();
            if (!"+OK".equals(ok)) {
                throw new IllegalStateException("MONITOR refused: " + ok);
            }
            reader = new Thread(() -> {
                try {
                    for (String line; (line = in.readLine()) != null; ) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    // Closed: the counter is done.
                }
            }, "redis-monitor");
            reader.setDaemon(true);
            reader.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot monitor Redis on " + host + ":" + port, e);
        }
        total(); // Drops whatever was reported before the counter existed.
        total = 0;
    }

    @Override
    public synchronized long total() {
        String tag = "idem-marker-" + UUID.randomUUID();
        try {
            send(marker.getOutputStream(), "ECHO " + tag);
            markerIn.readLine(); // $<len>
            markerIn.readLine(); // the tag
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (true) {
                String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new IllegalStateException("MONITOR did not report the marker within " + WAIT_SECONDS + " s");
                }
                if (line.contains(tag)) {
                    return total;
                }
                if (!line.contains(" lua]")) {
                    total++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while counting Redis commands", e);
        }
    }

    private static void send(OutputStream out, String inlineCommand) throws IOException {
        out.write((inlineCommand + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    @Override
    public void close() {
        try {
            monitor.close();
            marker.close();
        } catch (IOException e) {
            // Nothing to do: the sockets are gone either way.
        }
    }
}
