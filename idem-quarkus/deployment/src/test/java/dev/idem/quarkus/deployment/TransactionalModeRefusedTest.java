package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jaxrs.Idempotent;
import io.quarkus.test.QuarkusExtensionTest;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code idem.http.transactional=true} over a store that cannot join a database transaction (here
 * the memory store) stops the application at startup, with the reason and an action, instead of
 * failing every request, as the Spring starter refuses the mode over Redis.
 */
class TransactionalModeRefusedTest {
    @RegisterExtension
    static final QuarkusExtensionTest APP = new QuarkusExtensionTest()
            .withApplicationRoot(jar -> jar.addClass(Charges.class))
            .overrideConfigKey("idem.store.kind", "memory")
            .overrideConfigKey("idem.http.transactional", "true")
            .assertException(e -> assertThat(e).hasStackTraceContaining("idem.http.transactional=true")
                    .hasStackTraceContaining("the store is memory")
                    .hasStackTraceContaining("Action: use the JDBC store"));

    /** A covered resource. */
    @Path("/charges")
    public static class Charges {
        /**
         * A charge.
         *
         * @return the charge
         */
        @POST
        @Idempotent
        public String charge() {
            return "ok";
        }
    }

    @Test
    void startupFails() {
        // The extension's assertion above is the check: the application never started.
    }
}
