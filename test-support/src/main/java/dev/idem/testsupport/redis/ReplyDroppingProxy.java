package dev.idem.testsupport.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy in front of a redis-server that, when armed, lets the next request through and
 * cuts the connection when the server's reply comes back, instead of passing the reply on: the
 * command ran (its write landed), and the client never hears of it. Every connection the client
 * opens goes through the proxy, reconnections included.
 */
public final class ReplyDroppingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicReference<CountDownLatch> armed = new AtomicReference<>();
    private volatile boolean closed;

    /**
     * Starts the proxy on a free loopback port.
     *
     * @param targetPort the redis-server's port
     */
    public ReplyDroppingProxy(int targetPort) {
        this.target = targetPort;
        try {
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(this::accept, "redis-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * The port clients connect to.
     *
     * @return the port
     */
    public int port() {
        return listener.getLocalPort();
    }

    /**
     * Arms the proxy: the next reply from the server is dropped and its connection cut.
     *
     * @return counted down when that happened
     */
    public CountDownLatch dropNextReply() {
        CountDownLatch dropped = new CountDownLatch(1);
        if (!armed.compareAndSet(null, dropped)) {
            throw new IllegalStateException("already armed");
        }
        return dropped;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
                sockets.add(client);
                sockets.add(server);
                pump(client, server, false);
                pump(server, client, true);
            } catch (IOException e) {
                if (!closed) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    private void pump(Socket from, Socket to, boolean replies) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    CountDownLatch drop = replies ? armed.getAndSet(null) : null;
                    if (drop != null) {
                        from.close();
                        to.close();
                        drop.countDown();
                        return;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // The other side or the test closed the connection.
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, replies ? "redis-proxy-replies" : "redis-proxy-requests");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Waits until the armed drop happened, at most 10 seconds.
     *
     * @param dropped what {@link #dropNextReply()} returned
     * @throws InterruptedException if interrupted
     * @throws AssertionError if nothing was dropped in time
     */
    public static void awaitDropped(CountDownLatch dropped) throws InterruptedException {
        if (!dropped.await(10, TimeUnit.SECONDS)) {
            throw new AssertionError("no reply was dropped within 10 s");
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // Closing anyway.
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        sockets.forEach(ReplyDroppingProxy::closeQuietly);
    }
}
