package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The servlet filter's HTTP contract, unchanged, against a Quarkus REST application started by
 * {@code @QuarkusTest}, on a real PostgreSQL as the application's default datasource (the store
 * the extension builds from {@code idem.*}); blocking resource methods, so idem's filters run on
 * worker threads. Plus what the extension adds: its readiness check and meters.
 */
@QuarkusTest
@TestProfile(Backends.PostgresProfile.class)
class QuarkusPostgresContractTest extends AbstractQuarkusContract {
    @Test
    void theStoreIsBuiltOverTheApplicationsDatasource() {
        assertThat(Arc.container().instance(IdempotencyStore.class).get()).isInstanceOf(JdbcIdempotencyStore.class);
    }

    @Test
    void theReadinessCheckProbesTheStore() throws Exception {
        HttpResponse<byte[]> up = http().send("GET", "/q/health/ready", null);
        store().down = true;
        HttpResponse<byte[]> down;
        try {
            down = http().send("GET", "/q/health/ready", null);
        } finally {
            store().down = false;
        }

        assertThat(up.statusCode()).isEqualTo(200);
        // Named by kind, as the Spring starter names it, through the suite's decorator.
        assertThat(Http.text(up)).contains("\"name\": \"idem\"").contains("\"store\": \"jdbc\"");
        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(Http.text(down)).contains("\"name\": \"idem\"").contains("DOWN")
                .contains("StoreUnavailableException").doesNotContain("test outage");
    }

    @Test
    void engineEventsAreCountedInTheApplicationsMeterRegistry() throws Exception {
        http().post("/api/charges", "{\"amount\":1}", "Idempotency-Key", key(), "X-User", "meters");

        MeterRegistry registry = Arc.container().instance(MeterRegistry.class).get();
        assertThat(registry.find("idem.events").tag("outcome", "executed").counters())
                .anySatisfy(c -> assertThat(c.count()).isPositive());
    }
}
