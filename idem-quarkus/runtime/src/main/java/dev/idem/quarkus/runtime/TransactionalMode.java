package dev.idem.quarkus.runtime;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.HandlerExecution;
import dev.idem.quarkus.IdemConfig;
import dev.idem.quarkus.jta.JtaHandlerExecution;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import io.agroal.api.AgroalDataSource;
import io.agroal.narayana.NarayanaTransactionIntegration;
import io.quarkus.agroal.runtime.AgroalDataSourceUtil;
import io.quarkus.arc.Arc;
import io.quarkus.datasource.common.runtime.DataSourceUtil;
import jakarta.transaction.TransactionManager;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@code idem.http.transactional=true}: {@link JtaHandlerExecution} over the JDBC store, so that a
 * covered resource method's writes through the store's Agroal datasource (in the JTA transaction:
 * {@code @Transactional} beans, the injected datasource, Hibernate, or the request's handle) and
 * its stored response commit together. Refused when the configuration is built, at startup, with
 * the reason and an {@code Action:} line, wherever the transaction could not hold: a store that is
 * not the JDBC store (Redis, DynamoDB, memory); a JDBC store not built over the Agroal datasource
 * {@code idem.store.jdbc.datasource} names (else the default one), the application's datasource the
 * mode joins; that datasource inactive, or with its JTA integration off
 * ({@code jdbc.transactions=disabled}); resource methods covered through {@code idem.http.routes}
 * (the transaction is held around {@code @Idempotent} methods only). The JDBC and Agroal classes
 * are touched only once the store is known to be the JDBC store (the modules are optional).
 */
final class TransactionalMode {
    private static final String JDBC_STORE = "dev.idem.store.jdbc.JdbcIdempotencyStore";
    private static final String MODE = "idem.http.transactional=true asks for the JTA transactional mode (a resource"
            + " method's writes and its stored response in one transaction of the store's datasource), but ";

    private TransactionalMode() {
    }

    static HandlerExecution execution(IdempotencyEngine engine, IdempotencyStore store, IdemConfig config) {
        if (!store.getClass().getName().equals(JDBC_STORE)) {
            throw new IllegalStateException(MODE + "the store is " + StoreKinds.of(store) + ", which cannot join a"
                    + " database transaction."
                    + "\nAction: use the JDBC store (idem-store-jdbc with an Agroal datasource, idem.store.kind=jdbc"
                    + " or auto), or remove idem.http.transactional.");
        }
        if (config.http().routes().filter(r -> !r.isEmpty()).isPresent()) {
            throw new IllegalStateException(MODE + "idem.http.routes covers resource methods by template, and the"
                    + " transaction is held around @Idempotent methods only."
                    + "\nAction: annotate the methods of " + config.http().routes().get() + " @Idempotent"
                    + " (dev.idem.jaxrs.Idempotent) and remove idem.http.routes.");
        }
        return Jta.execution(engine, (JdbcIdempotencyStore) store, config);
    }

    /** Loaded only with idem-store-jdbc and quarkus-agroal. */
    private static final class Jta {
        static HandlerExecution execution(IdempotencyEngine engine, JdbcIdempotencyStore store, IdemConfig config) {
            String name = config.store().jdbc().datasource().orElse(DataSourceUtil.DEFAULT_DATASOURCE_NAME);
            String property = DataSourceUtil.isDefault(name) ? "quarkus.datasource." : "quarkus.datasource.\"" + name
                    + "\".";
            Optional<DataSource> own = store.dataSource();
            if (own.isEmpty() || !(own.get() instanceof AgroalDataSource agroal)) {
                throw new IllegalStateException(MODE + "the JDBC store takes its connections from "
                        + own.map(d -> "a " + d.getClass().getName()).orElse("a Jdbi") + ", not from an Agroal"
                        + " datasource, which alone enlists them in the application's JTA transaction.\nAction:"
                        + " build the JdbcIdempotencyStore bean over the AgroalDataSource " + name
                        + " (idem.store.jdbc.datasource), or leave the store to the extension.");
            }
            Optional<AgroalDataSource> named = AgroalDataSourceUtil.dataSourceIfActive(name);
            if (named.isEmpty()) {
                throw new IllegalStateException(MODE + "the datasource " + name + " (idem.store.jdbc.datasource) is"
                        + " not active.\nAction: configure it (" + property + "*), or set idem.store.jdbc.datasource"
                        + " to the datasource the store and the resources use.");
            }
            if (agroal.getConfiguration() != named.get().getConfiguration()) {
                throw new IllegalStateException(MODE + "the JDBC store takes its connections from another Agroal"
                        + " datasource than " + name + " (idem.store.jdbc.datasource), the application's datasource"
                        + " whose transaction the mode joins.\nAction: build the JdbcIdempotencyStore bean over the"
                        + " AgroalDataSource " + name + " (or leave the store to the extension), or set"
                        + " idem.store.jdbc.datasource to the datasource it is built over.");
            }
            if (!(agroal.getConfiguration().connectionPoolConfiguration().transactionIntegration()
                    instanceof NarayanaTransactionIntegration)) {
                throw new IllegalStateException(MODE + "the connections of the datasource " + name + " take no part"
                        + " in JTA transactions.\nAction: remove " + property + "jdbc.transactions=disabled"
                        + " (enabled or xa enlists them), or remove idem.http.transactional.");
            }
            TransactionManager transactions = Arc.container().instance(TransactionManager.class).get();
            return JtaHandlerExecution.of(engine, store, transactions);
        }
    }
}
