package dev.idem.store.hybrid;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy in front of Redis that can hold every request back for a while, as a congested
 * network or a stalled server would: bytes a client sends reach Redis {@code delay} after they
 * were sent, in order, even if the client gave up and closed its connection meanwhile (the
 * script then runs late, for nobody). Replies pass at once. Each connection uses three daemon
 * threads; {@link #close()} ends them all.
 */
final class DelayingProxy implements AutoCloseable {
    private static final byte[] END = new byte[0];

    private final int targetPort;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile long delayNanos;

    DelayingProxy(int targetPort) {
        this.targetPort = targetPort;
        try {
            this.server = new ServerSocket(0, 50, InetAddress.getByName(GateRedis.HOST));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        daemon("proxy-accept", this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    /** From now on, requests reach Redis this long after they were sent (zero: at once). */
    void delayRequests(Duration delay) {
        this.delayNanos = delay.toNanos();
    }

    private record Chunk(byte[] bytes, long due) {
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            try {
                Socket upstream = new Socket(GateRedis.HOST, targetPort);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                BlockingQueue<Chunk> requests = new LinkedBlockingQueue<>();
                daemon("proxy-read", () -> readRequests(client, requests));
                daemon("proxy-send", () -> sendRequests(requests, upstream));
                daemon("proxy-reply", () -> pump(upstream, client));
            } catch (IOException e) {
                close(client);
            }
        }
    }

    private void readRequests(Socket client, BlockingQueue<Chunk> requests) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = client.getInputStream()) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                requests.add(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime() + delayNanos));
            }
        } catch (IOException e) {
            // The client went away: what it sent before still goes out.
        }
        requests.add(new Chunk(END, 0));
    }

    private void sendRequests(BlockingQueue<Chunk> requests, Socket upstream) {
        try {
            OutputStream out = upstream.getOutputStream();
            while (true) {
                Chunk c = requests.take();
                if (c.bytes() == END) {
                    // Leave the upstream open: Redis still runs what it got and replies into the void.
                    return;
                }
                for (long left = c.due() - System.nanoTime(); left > 0; left = c.due() - System.nanoTime()) {
                    LockSupport.parkNanos(left);
                }
                out.write(c.bytes());
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            close(upstream);
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) > 0) {
                try {
                    out.write(buffer, 0, n);
                    out.flush();
                } catch (IOException e) {
                    // The client gave up on this reply; keep draining Redis' side.
                }
            }
        } catch (IOException e) {
            // Closed.
        }
        close(to);
    }

    private static void daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // Already gone.
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // Already closed.
        }
        sockets.forEach(DelayingProxy::close);
    }
}
