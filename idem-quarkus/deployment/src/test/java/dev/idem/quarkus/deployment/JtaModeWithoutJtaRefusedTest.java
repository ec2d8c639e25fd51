package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusExtensionTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code idem.http.transactional=true} (the JTA mode) over the JDBC store on a datasource whose JTA
 * integration is off ({@code jdbc.transactions=disabled}): its connections would never join the
 * application's transaction, so the application stops at startup, with the reason and an action.
 * The PostgreSQL datasource is never connected to.
 */
class JtaModeWithoutJtaRefusedTest {
    @RegisterExtension
    static final QuarkusExtensionTest APP = new QuarkusExtensionTest()
            .withApplicationRoot(jar -> jar.addClass(TransactionalModeRefusedTest.Charges.class))
            .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
            .overrideConfigKey("quarkus.datasource.jdbc.url", "jdbc:postgresql://127.0.0.1:9/none")
            .overrideConfigKey("quarkus.datasource.jdbc.transactions", "disabled")
            .overrideConfigKey("idem.store.kind", "jdbc")
            .overrideConfigKey("idem.purge.enabled", "false")
            .overrideConfigKey("idem.http.transactional", "true")
            .assertException(e -> assertThat(e).hasStackTraceContaining("idem.http.transactional=true")
                    .hasStackTraceContaining("the connections of the datasource <default> take no part in JTA")
                    .hasStackTraceContaining("Action: remove quarkus.datasource.jdbc.transactions=disabled"));

    @Test
    void startupFails() {
        // The extension's assertion above is the check: the application never started.
    }
}
