package dev.idem.quarkus.runtime;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.HandlerExecution;
import dev.idem.http.jdbc.JdbcHandlerExecution;
import dev.idem.store.jdbc.JdbcIdempotencyStore;

/**
 * {@code idem.http.transactional=true}: idem-http's {@link JdbcHandlerExecution} over the JDBC store
 * the extension built on the application's Agroal datasource, so a covered resource method's writes
 * through the request's transaction and its stored response commit together. A store that cannot
 * join that transaction (Redis, DynamoDB, memory) refuses the mode when the configuration is built,
 * at startup. The JDBC classes are touched only once the store is known to be the JDBC store (the
 * module is optional).
 */
final class TransactionalMode {
    private static final String JDBC_STORE = "dev.idem.store.jdbc.JdbcIdempotencyStore";

    private TransactionalMode() {
    }

    static HandlerExecution execution(IdempotencyEngine engine, IdempotencyStore store) {
        if (!store.getClass().getName().equals(JDBC_STORE)) {
            throw new IllegalStateException("idem.http.transactional=true asks for the JDBC transactional mode (a"
                    + " resource's writes and its stored response in one transaction of the store's datasource), but"
                    + " the store is " + StoreKinds.of(store) + ", which cannot join a database transaction."
                    + "\nAction: use the JDBC store (idem-store-jdbc with an Agroal datasource, idem.store.kind=jdbc"
                    + " or auto), or remove idem.http.transactional.");
        }
        return Jdbc.execution(engine, store);
    }

    /** Loaded only with idem-store-jdbc. */
    private static final class Jdbc {
        static HandlerExecution execution(IdempotencyEngine engine, IdempotencyStore store) {
            return JdbcHandlerExecution.of(engine, (JdbcIdempotencyStore) store);
        }
    }
}
