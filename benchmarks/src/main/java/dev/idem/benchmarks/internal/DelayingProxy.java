package dev.idem.benchmarks.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on loopback that holds every byte going from the client to the server for a fixed
 * delay before it forwards it, as a distant server would: each request (a Redis command, however
 * many a pipelined connection has in flight) reaches the server that much later, while the
 * client's connection, its event loop and the server itself behave exactly as on a real network.
 * Answers go back at once. Chunks are forwarded in the order they were read, each at its own due
 * time, so a burst of requests stays a burst, shifted. Its threads are named
 * {@value #THREAD_PREFIX}... so a count of the JVM's threads can leave them out (they stand for
 * the network, not for the client).
 */
public final class DelayingProxy implements AutoCloseable {
    /** The prefix of every thread the proxy starts. */
    public static final String THREAD_PREFIX = "delay-proxy-";

    private static final AtomicInteger CONNECTIONS = new AtomicInteger();
    private static final Chunk END = new Chunk(new byte[0], 0);

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final long delayNanos;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private record Chunk(byte[] bytes, long dueNanos) {
    }

    private DelayingProxy(InetSocketAddress target, Duration delay) throws IOException {
        this.target = target;
        this.delayNanos = delay.toNanos();
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    }

    /**
     * Starts a proxy to {@code host:port} on a free loopback port.
     *
     * @param host the server's host
     * @param port the server's port
     * @param delay what every client-to-server byte waits
     * @return the running proxy
     * @throws IOException if no port can be opened
     */
    public static DelayingProxy start(String host, int port, Duration delay) throws IOException {
        DelayingProxy proxy = new DelayingProxy(new InetSocketAddress(host, port), delay);
        proxy.thread("accept", proxy::accept).start();
        return proxy;
    }

    /**
     * The port clients connect to.
     *
     * @return the port
     */
    public int port() {
        return listener.getLocalPort();
    }

    private Thread thread(String name, Runnable body) {
        Thread t = new Thread(body, THREAD_PREFIX + name);
        t.setDaemon(true);
        return t;
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return;
            }
            try {
                Socket server = new Socket();
                server.connect(target, 5_000);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                int n = CONNECTIONS.incrementAndGet();
                BlockingQueue<Chunk> held = new LinkedBlockingQueue<>();
                thread("read-" + n, () -> read(client, server, held)).start();
                thread("send-" + n, () -> send(held, client, server)).start();
                thread("back-" + n, () -> copy(server, client)).start();
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    // Client to proxy: each read becomes a chunk due after the delay.
    private void read(Socket client, Socket server, BlockingQueue<Chunk> held) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = client.getInputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                held.add(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime() + delayNanos));
            }
        } catch (IOException e) {
            // The connection ended; the sender closes the other side.
        } finally {
            held.add(END);
        }
    }

    // Proxy to server: each chunk when it is due, in order.
    private void send(BlockingQueue<Chunk> held, Socket client, Socket server) {
        try (OutputStream out = server.getOutputStream()) {
            while (true) {
                Chunk c = held.poll(1, TimeUnit.SECONDS);
                if (c == null) {
                    if (closed) {
                        return;
                    }
                    continue;
                }
                if (c == END) {
                    return;
                }
                long wait;
                while ((wait = c.dueNanos() - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                }
                out.write(c.bytes());
                out.flush();
            }
        } catch (IOException e) {
            // The server went away.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    // Server to client: at once.
    private static void copy(Socket server, Socket client) {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = server.getInputStream(); OutputStream out = client.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // Either side ended.
        } finally {
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // Closing anyway.
        }
    }

    /** Stops accepting and closes every connection. */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // Closing anyway.
        }
        sockets.forEach(DelayingProxy::closeQuietly);
    }
}
