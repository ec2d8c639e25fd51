package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import io.agroal.api.AgroalDataSource;
import io.quarkus.agroal.DataSource;
import io.quarkus.test.QuarkusExtensionTest;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code idem.http.transactional=true} (the JTA mode) with the application's own JDBC store built
 * over a second datasource, not the one the mode joins ({@code idem.store.jdbc.datasource}, here
 * the default): the stored response would commit apart from the resources' writes, so the
 * application stops at startup, with the reason and an action. The PostgreSQL datasources are
 * never connected to.
 */
class JtaModeOtherDatasourceRefusedTest {
    @RegisterExtension
    static final QuarkusExtensionTest APP = new QuarkusExtensionTest()
            .withApplicationRoot(jar -> jar.addClasses(TransactionalModeRefusedTest.Charges.class, OtherStore.class))
            .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
            .overrideConfigKey("quarkus.datasource.jdbc.url", "jdbc:postgresql://127.0.0.1:9/none")
            .overrideConfigKey("quarkus.datasource.other.db-kind", "postgresql")
            .overrideConfigKey("quarkus.datasource.other.jdbc.url", "jdbc:postgresql://127.0.0.1:9/other")
            .overrideConfigKey("idem.purge.enabled", "false")
            .overrideConfigKey("idem.http.transactional", "true")
            .assertException(e -> assertThat(e).hasStackTraceContaining("idem.http.transactional=true")
                    .hasStackTraceContaining("takes its connections from another Agroal datasource than <default>")
                    .hasStackTraceContaining("Action: build the JdbcIdempotencyStore bean over the AgroalDataSource"
                            + " <default>"));

    /** The application's own store, over its second datasource. */
    @Singleton
    public static class OtherStore {
        /**
         * The store.
         *
         * @param other the second datasource
         * @return the store over it
         */
        @Produces
        @Singleton
        IdempotencyStore store(@DataSource("other") AgroalDataSource other) {
            return JdbcIdempotencyStore.builder(other).build();
        }
    }

    @Test
    void startupFails() {
        // The extension's assertion above is the check: the application never started.
    }
}
