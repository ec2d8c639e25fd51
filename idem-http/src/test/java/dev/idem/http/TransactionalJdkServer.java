package dev.idem.http;

import com.sun.net.httpserver.HttpServer;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.jdbc.JdbcHandlerExecution;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.Executors;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The JDK server of {@link JdkTransactionalKillTest}, run as a child JVM: the transactional
 * application of the suite behind {@link IdempotentHttpHandler} and {@link JdbcHandlerExecution},
 * on the H2 database the test serves over TCP. Prints {@code LISTENING <port>} once it serves, and
 * {@code CRASHED <point>} when a request reaches its crash point, where it stops until killed.
 */
final class TransactionalJdkServer {
    private TransactionalJdkServer() {
    }

    public static void main(String[] args) throws Exception {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(args[0]);
        JdbcIdempotencyStore store = TransactionalApp.store(dataSource);
        IdempotencyEngine engine = TransactionalApp.engine(store);
        JdbcHandlerExecution transactions = JdbcHandlerExecution.of(engine, store);
        TransactionalApp.Crash crash = (point, transaction) -> {
            System.out.println("CRASHED " + point);
            System.out.flush();
            while (true) {
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    // Only the kill ends this worker.
                }
            }
        };
        HttpIdempotency config = TransactionalApp.config(engine, TransactionalApp.crashingAfterCommit(transactions,
                crash));
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/tx/", new IdempotentHttpHandler(config, transactions.handler((exchange, handle) -> {
            try (InputStream in = exchange.getRequestBody()) {
                in.readAllBytes();
            }
            TransactionalApp.Reply reply = TransactionalApp.handle(
                    exchange.getAttribute(HttpIdempotency.CONTEXT_ATTRIBUTE), handle,
                    exchange.getRequestHeaders().getFirst("Idempotency-Key"),
                    Optional.ofNullable(exchange.getRequestHeaders().getFirst(TransactionalApp.CRASH)),
                    Optional.ofNullable(exchange.getRequestHeaders().getFirst(TransactionalApp.FAIL)), crash);
            exchange.getResponseHeaders().set("Content-Type", reply.contentType());
            exchange.sendResponseHeaders(reply.status(), reply.body().length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(reply.body());
            }
        })));
        server.start();
        System.out.println("LISTENING " + server.getAddress().getPort());
        System.out.flush();
    }
}
