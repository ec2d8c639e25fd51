package dev.idem.jaxrs.readme;

import static org.assertj.core.api.Assertions.assertThat;

// The README's setup block shows these imports with their comments: the modules its types live in.
import dev.idem.engine.IdempotencyEngine;             // idem-engine
import dev.idem.http.HttpIdempotency;                 // idem-http (a dependency of idem-jaxrs)
import dev.idem.http.PrincipalResolver;
import dev.idem.jaxrs.IdempotencyFeature;             // idem-jaxrs
import dev.idem.jaxrs.JaxrsRoutes;
import dev.idem.store.jdbc.JdbcIdempotencyStore;      // idem-store-jdbc (or another store)
import org.glassfish.jersey.jackson.JacksonFeature;   // jersey-media-json-jackson
import org.glassfish.jersey.server.ResourceConfig;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpContainer;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ServerProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's setup and resource, run in Jersey on an embedded Grizzly server. */
@Timeout(60)
class ReadmeExamplesTest {
    // HTTP/1.1: Grizzly never reads the body of a POST the JDK client offers to upgrade to h2c.
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> post(String base, String key, String apiKey, String json) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + "/charges")).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .header("X-Api-Key", apiKey).POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void setupAndResource() throws Exception {
        org.h2.jdbcx.JdbcDataSource dataSource = new org.h2.jdbcx.JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:jaxrs-readme;DB_CLOSE_DELAY=-1");
        JdbcIdempotencyStore.builder(dataSource).build().createTableIfNotExists();
        // tag::setup[]
        // The records live in the application's database (the table: see idem-store-jdbc's README).
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        HttpIdempotency config = HttpIdempotency.builder(engine)
                .routes(JaxrsRoutes.annotated())                                     // @Idempotent methods
                .principals(PrincipalResolver.authenticatedUser()                    // SecurityContext's principal,
                        .orElse(PrincipalResolver.apiKeyHeader("X-Api-Key")))        // else the hashed API-key header
                .build();

        ResourceConfig app = new ResourceConfig(ChargeResource.class)
                .register(JacksonFeature.class)             // reads and writes the resource's records as JSON
                .register(new IdempotencyFeature(config));
        // end::setup[]
        app.property(ServerProperties.WADL_FEATURE_DISABLE, true);
        HttpServer server = new HttpServer();
        NetworkListener listener = new NetworkListener("idem", "127.0.0.1", 0);
        server.addListener(listener);
        server.getServerConfiguration().addHttpHandler(
                ContainerFactory.createContainer(GrizzlyHttpContainer.class, app), "/");
        server.start();
        try {
            String base = "http://127.0.0.1:" + listener.getPort();
            HttpResponse<String> first = post(base, "k-1", "key-alice", "{\"amount\":10}");
            HttpResponse<String> retry = post(base, "k-1", "key-alice", "{\"amount\":10}");
            HttpResponse<String> otherBody = post(base, "k-1", "key-alice", "{\"amount\":11}");
            HttpResponse<String> otherCaller = post(base, "k-1", "key-bob", "{\"amount\":10}");

            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(first.body()).isEqualTo("{\"id\":\"ch_1\",\"amount\":10}");
            assertThat(retry.body()).isEqualTo(first.body());
            assertThat(otherBody.statusCode()).isEqualTo(422);
            assertThat(otherCaller.body()).isEqualTo("{\"id\":\"ch_2\",\"amount\":10}");
            assertThat(Payments.payments.downstreamKeys).hasSize(2).doesNotContainNull().doesNotHaveDuplicates();
        } finally {
            server.shutdownNow();
        }
    }
}
