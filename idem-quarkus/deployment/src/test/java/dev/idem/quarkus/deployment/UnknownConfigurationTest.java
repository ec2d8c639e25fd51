package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jaxrs.Idempotent;
import io.quarkus.test.QuarkusExtensionTest;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An {@code @Idempotent("name")} that names no {@code HttpIdempotency} bean stops the application
 * at startup, naming the configuration, instead of answering its requests with 500.
 */
class UnknownConfigurationTest {
    @RegisterExtension
    static final QuarkusExtensionTest APP = new QuarkusExtensionTest()
            .withApplicationRoot(jar -> jar.addClass(Webhooks.class))
            .overrideConfigKey("idem.store.kind", "memory")
            .assertException(e -> assertThat(e).hasStackTraceContaining("@Idempotent names configurations without an"
                    + " HttpIdempotency bean: [webhooks]"));

    /** A resource naming a configuration nobody produced. */
    @Path("/webhooks")
    public static class Webhooks {
        /**
         * A webhook.
         *
         * @return nothing
         */
        @POST
        @Idempotent("webhooks")
        public String receive() {
            return "ok";
        }
    }

    @Test
    void startupFails() {
        // The extension's assertion above is the check: the application never started.
    }
}
