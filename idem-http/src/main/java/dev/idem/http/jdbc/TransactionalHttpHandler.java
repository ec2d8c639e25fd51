package dev.idem.http.jdbc;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import org.jdbi.v3.core.Handle;

/**
 * A JDK server handler that writes through the transaction it runs in:
 * {@link JdbcHandlerExecution#handler(TransactionalHttpHandler)} makes an ordinary
 * {@code HttpHandler} of it. On a covered request {@code handle} is the transaction that also
 * stores the response; on any other request (a {@code GET}, a request without a key on a route
 * where the key is optional) it is a transaction of its own on the same database.
 */
@FunctionalInterface
public interface TransactionalHttpHandler {
    /**
     * Handles one request, as {@code HttpHandler.handle} does.
     *
     * @param exchange the exchange (for a covered request, its body and response are buffered)
     * @param handle the transaction's handle; do not commit, roll back or close it
     * @throws IOException as {@code HttpHandler.handle}; any exception rolls the transaction back
     */
    void handle(HttpExchange exchange, Handle handle) throws IOException;
}
