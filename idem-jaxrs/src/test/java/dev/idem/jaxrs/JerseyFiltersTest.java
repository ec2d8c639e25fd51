package dev.idem.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.http.HandlerExecution;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.PrincipalResolver;
import dev.idem.store.memory.MemoryIdempotencyStore;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.MessageBodyWriter;
import java.io.OutputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpContainer;
import org.glassfish.jersey.server.ContainerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What Jakarta REST adds to the contract the shared suite checks ({@code JerseyContractTest}):
 * entities written by the application's own writers, route names from resource templates,
 * selection by {@link Idempotent}, several configurations in one filter, exceptions the
 * application maps, asynchronous resource methods, the principal-header fallback. Jersey in an
 * embedded Grizzly server, one application for the test class.
 */
class JerseyFiltersTest {
    static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();
    static final Set<String> ROUTES = ConcurrentHashMap.newKeySet();
    private static final ExecutorService ASYNC = Executors.newFixedThreadPool(2);
    private static HttpServer server;
    private static String base;
    // HTTP/1.1: Grizzly never reads the body of a POST the JDK client offers to upgrade to h2c (idem or not).
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build();
        HandlerExecution engineExecution = HandlerExecution.engine(engine);
        // Records the route each covered call was named after, then runs it as the default does.
        HandlerExecution recording = new HandlerExecution() {
            @Override
            public <T> Result<T> execute(Call call, Class<T> type, Work<? extends T> work) {
                ROUTES.add(call.operationName());
                return engineExecution.execute(call, type, work);
            }

            @Override
            public <T> CompletableFuture<Result<T>> executeAsync(Call call, Class<T> type,
                    dev.idem.engine.AsyncWork<? extends T> work) {
                ROUTES.add(call.operationName());
                return engineExecution.executeAsync(call, type, work);
            }
        };
        HttpIdempotency annotated = HttpIdempotency.builder(engine).routes(JaxrsRoutes.annotated())
                .principals(PrincipalResolver.authenticatedUser().orElse(PrincipalResolver.apiKeyHeader("X-Api-Key")))
                .execution(recording).build();
        HttpIdempotency orders = HttpIdempotency.builder(engine)
                .routes(JaxrsRoutes.templates(List.of("/orders/{id}/confirm")))
                .principals(PrincipalResolver.fixed("orders")).execution(recording).build();
        ResourceConfig app = new ResourceConfig(Charges.class, Orders.class, Undeclared.class, Payouts.class, Refunds.class,
                        ChargeWriter.class, DeclinedMapper.class)
                .register(new IdempotencyFeature(annotated, orders))
                .property(ServerProperties.WADL_FEATURE_DISABLE, true);
        server = new HttpServer();
        NetworkListener listener = new NetworkListener("idem", "127.0.0.1", 0);
        server.addListener(listener);
        server.getServerConfiguration().addHttpHandler(
                ContainerFactory.createContainer(GrizzlyHttpContainer.class, app), "/");
        server.start();
        base = "http://127.0.0.1:" + listener.getPort();
    }

    @AfterAll
    static void stop() {
        server.shutdownNow();
        ASYNC.shutdownNow();
    }

    /** A charge, written as JSON by {@link ChargeWriter}, the way an application's JSON provider would. */
    public record Charge(String id, int amount) {
    }

    /** The application's own entity writer. */
    @Produces(MediaType.APPLICATION_JSON)
    public static final class ChargeWriter implements MessageBodyWriter<Charge> {
        @Override
        public boolean isWriteable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
            return type == Charge.class;
        }

        @Override
        public void writeTo(Charge charge, Class<?> type, Type genericType, Annotation[] annotations,
                MediaType mediaType, MultivaluedMap<String, Object> headers, OutputStream out) throws java.io.IOException {
            headers.putSingle("X-Writer", "charge");
            out.write(("{\"id\":\"" + charge.id() + "\",\"amount\":" + charge.amount() + "}")
                    .getBytes(StandardCharsets.UTF_8));
        }
    }

    /** A domain exception the application maps to 402 itself. */
    public static final class DeclinedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DeclinedException(String message) {
            super(message);
        }
    }

    /** The application's own mapper: its response is the handler's answer, stored like any other. */
    public static final class DeclinedMapper implements ExceptionMapper<DeclinedException> {
        @Override
        public Response toResponse(DeclinedException e) {
            return Response.status(402).type(MediaType.TEXT_PLAIN).entity("declined: " + e.getMessage()).build();
        }
    }

    static int run(String what) {
        return RUNS.computeIfAbsent(what, k -> new AtomicInteger()).incrementAndGet();
    }

    @Path("/charges")
    @Produces(MediaType.APPLICATION_JSON)
    public static final class Charges {
        @POST
        @Idempotent
        public Charge create(String body) {
            return new Charge("ch_" + run("create") + "_" + UUID.randomUUID(), body.length());
        }

        @POST
        @Path("/plain")
        public Charge notIdempotent() {
            return new Charge("ch_plain_" + run("plain"), 0);
        }

        @POST
        @Idempotent
        @Path("/{id: [0-9]+}/refund")
        public Response refund(@PathParam("id") String id) {
            run("refund");
            throw new DeclinedException("charge " + id + " is not refundable");
        }

        @POST
        @Idempotent
        @Path("/missing")
        public Response missing() {
            run("missing");
            throw new NotFoundException();
        }

        @POST
        @Idempotent
        @Path("/async")
        public CompletionStage<Charge> async() {
            return CompletableFuture.supplyAsync(() -> new Charge("ch_async_" + run("async"), 1), ASYNC);
        }

        @POST
        @Idempotent
        @Path("/async-failing")
        public CompletionStage<Charge> asyncFailing() {
            return CompletableFuture.supplyAsync(() -> {
                if (run("async-failing") == 1) {
                    throw new IllegalStateException("provider timed out");
                }
                return new Charge("ch_async_retry", 2);
            }, ASYNC);
        }

        @POST
        @Path("/broken")
        public Charge brokenAndNotCovered() {
            run("broken");
            throw new IllegalStateException("not covered, and failing");
        }

        @GET
        public String list() {
            return "[]";
        }
    }

    /** Neither the method nor the class names a media type: the runtime picks one, idem must keep it. */
    @Path("/undeclared")
    public static final class Undeclared {
        @POST
        @Idempotent
        public Charge charge() {
            return new Charge("ch_undeclared_" + run("undeclared"), 5);
        }

        @POST
        @Idempotent
        @Path("/text")
        public String text() {
            return "text " + run("undeclared-text");
        }
    }

    @Path("/orders")
    public static final class Orders {
        @POST
        @Path("/{id}/confirm")
        @Produces(MediaType.TEXT_PLAIN)
        public String confirm(@PathParam("id") String id) {
            return "confirmed " + id + " " + run("confirm " + id);
        }
    }

    /** Resource methods declared on an interface, as shared API interfaces do. */
    public interface PayoutApi {
        @POST
        @Idempotent
        @Path("/{id}")
        @Produces(MediaType.TEXT_PLAIN)
        String pay(@PathParam("id") String id);
    }

    @Path("/payouts")
    public static final class Payouts implements PayoutApi {
        @Override
        public String pay(String id) {
            return "paid " + id + " " + run("payout " + id);
        }
    }

    /** The whole interface is idempotent. */
    @Idempotent
    public interface RefundApi {
        @POST
        @Path("/{id}")
        @Produces(MediaType.TEXT_PLAIN)
        String refund(@PathParam("id") String id);
    }

    @Path("/refunds")
    public static final class Refunds implements RefundApi {
        @Override
        public String refund(String id) {
            return "refunded " + id + " " + run("refund-api " + id);
        }
    }

    private HttpResponse<String> post(String path, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "text/plain");
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String key() {
        return UUID.randomUUID().toString();
    }

    @Test
    void anEntityWrittenByTheApplicationsWriterIsStoredAndReplayedByteForByte() throws Exception {
        String key = key();
        HttpResponse<String> first = post("/charges", "abc", "Idempotency-Key", key, "X-Api-Key", "k1");
        HttpResponse<String> replay = post("/charges", "abc", "Idempotency-Key", key, "X-Api-Key", "k1");

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).matches("\\{\"id\":\"ch_\\d+_[0-9a-f-]{36}\",\"amount\":3}");
        assertThat(first.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(first.headers().firstValue("X-Writer")).hasValue("charge");
        assertThat(first.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(replay.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(replay.headers().firstValue("X-Writer")).as("not a stored header").isEmpty();
    }

    @Test
    void whereNoMediaTypeIsDeclaredTheRuntimesChoiceIsStoredAndReplayed() throws Exception {
        String key = key();
        HttpResponse<String> first = post("/undeclared", "", "Idempotency-Key", key, "X-Api-Key", "k1");
        HttpResponse<String> replay = post("/undeclared", "", "Idempotency-Key", key, "X-Api-Key", "k1");
        HttpResponse<String> text = post("/undeclared/text", "", "Idempotency-Key", key(), "X-Api-Key", "k1");

        assertThat(first.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(first.body()).startsWith("{\"id\":\"ch_undeclared_");
        assertThat(replay.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(text.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        assertThat(text.body()).startsWith("text ");
    }

    @Test
    void onlyAnnotatedMethodsAreCoveredAndTheHeaderScopesCallersWithoutAPrincipal() throws Exception {
        String key = key();
        HttpResponse<String> plain = post("/charges/plain", "", "X-Api-Key", "k1");
        HttpResponse<String> noKey = post("/charges", "x", "X-Api-Key", "k1");
        HttpResponse<String> nobody = post("/charges", "x", "Idempotency-Key", key);
        HttpResponse<String> k1 = post("/charges", "x", "Idempotency-Key", key, "X-Api-Key", "k1");
        HttpResponse<String> k2 = post("/charges", "x", "Idempotency-Key", key, "X-Api-Key", "k2");

        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(plain.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).isEmpty();
        assertThat(noKey.statusCode()).isEqualTo(400);
        assertThat(noKey.body()).contains("missing-key");
        assertThat(nobody.statusCode()).isEqualTo(401);
        assertThat(k1.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
        assertThat(k2.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).as("another caller's key space")
                .hasValue("stored");
        assertThat(k2.body()).isNotEqualTo(k1.body());
    }

    @Test
    void anIdempotentMethodOrTypeOfAnImplementedInterfaceIsCoveredAndRunsOnce() throws Exception {
        String key = key();
        HttpResponse<String> first = post("/payouts/3", "", "Idempotency-Key", key, "X-Api-Key", "k1");
        HttpResponse<String> again = post("/payouts/3", "", "Idempotency-Key", key, "X-Api-Key", "k1");
        String refundKey = key();
        HttpResponse<String> refund = post("/refunds/4", "", "Idempotency-Key", refundKey, "X-Api-Key", "k1");
        HttpResponse<String> refundAgain = post("/refunds/4", "", "Idempotency-Key", refundKey, "X-Api-Key", "k1");

        assertThat(first.body()).isEqualTo("paid 3 1");
        assertThat(first.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
        assertThat(again.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(RUNS.get("payout 3").get()).as("the payout ran once").isEqualTo(1);
        assertThat(refundAgain.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(refundAgain.body()).isEqualTo(refund.body()).isEqualTo("refunded 4 1");
        assertThat(ROUTES).as("the interface method's path is in the template")
                .contains("POST /payouts/{id}", "POST /refunds/{id}");
    }

    @Test
    void callsAreNamedAfterTheResourceTemplateWithoutItsRegex() throws Exception {
        post("/charges/42/refund", "", "Idempotency-Key", key(), "X-Api-Key", "k1");
        post("/orders/7/confirm", "", "Idempotency-Key", key());

        assertThat(ROUTES).contains("POST /charges/{id}/refund", "POST /orders/{id}/confirm");
    }

    @Test
    void theSecondConfigurationTakesTheRoutesTheFirstDoesNotCover() throws Exception {
        String key = key();
        HttpResponse<String> first = post("/orders/9/confirm", "", "Idempotency-Key", key);
        HttpResponse<String> again = post("/orders/9/confirm", "", "Idempotency-Key", key);
        HttpResponse<String> other = post("/orders/10/confirm", "", "Idempotency-Key", key);

        assertThat(first.body()).isEqualTo("confirmed 9 1");
        assertThat(again.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(other.body()).as("same key, other path: another intent").isEqualTo("confirmed 10 1");
    }

    @Test
    void anExceptionTheApplicationMapsIsTheHandlersAnswerAndIsStored() throws Exception {
        String key = key();
        int before = RUNS.getOrDefault("refund", new AtomicInteger()).get();
        HttpResponse<String> first = post("/charges/5/refund", "", "Idempotency-Key", key, "X-Api-Key", "k1");
        HttpResponse<String> replay = post("/charges/5/refund", "", "Idempotency-Key", key, "X-Api-Key", "k1");
        String missingKey = key();
        HttpResponse<String> missing = post("/charges/missing", "", "Idempotency-Key", missingKey, "X-Api-Key", "k1");
        HttpResponse<String> missingAgain = post("/charges/missing", "", "Idempotency-Key", missingKey, "X-Api-Key",
                "k1");

        assertThat(first.statusCode()).isEqualTo(402);
        assertThat(first.body()).isEqualTo("declined: charge 5 is not refundable");
        assertThat(replay.statusCode()).isEqualTo(402);
        assertThat(replay.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(RUNS.get("refund").get() - before).isEqualTo(1);
        assertThat(missing.statusCode()).as("a WebApplicationException is an answer").isEqualTo(404);
        assertThat(missingAgain.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(RUNS.get("missing").get()).isEqualTo(1);
    }

    @Test
    void anAsynchronousResourceMethodIsStoredAndAFailedOneReleasesTheKey() throws Exception {
        String key = key();
        HttpResponse<String> first = post("/charges/async", "", "Idempotency-Key", key, "X-Api-Key", "k1");
        HttpResponse<String> replay = post("/charges/async", "", "Idempotency-Key", key, "X-Api-Key", "k1");
        String failingKey = key();
        HttpResponse<String> failed = post("/charges/async-failing", "", "Idempotency-Key", failingKey, "X-Api-Key",
                "k1");
        HttpResponse<String> retried = post("/charges/async-failing", "", "Idempotency-Key", failingKey, "X-Api-Key",
                "k1");

        assertThat(first.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
        assertThat(replay.body()).isEqualTo(first.body()).startsWith("{\"id\":\"ch_async_");
        assertThat(failed.statusCode()).isEqualTo(500);
        assertThat(failed.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(failed.body()).contains("handler-failed");
        assertThat(retried.statusCode()).isEqualTo(200);
        assertThat(retried.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("stored");
    }

    @Test
    void anUncoveredRequestThatFailsGetsThePlain500OfTheRuntime() throws Exception {
        HttpResponse<String> r = post("/charges/broken", "", "X-Api-Key", "k1");

        assertThat(r.statusCode()).isEqualTo(500);
        assertThat(r.body()).doesNotContain("HandlerFailure").doesNotContain("problem");
        assertThat(r.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).isEmpty();
    }

    @Test
    void aWebApplicationExceptionIsNeverReportedAsAFailure() {
        assertThat(JaxrsIdempotency.handlerFailed(null, new WebApplicationException(409))).isFalse();
    }

    @Test
    void templatesJoinClassAndMethodPathsWithoutRegularExpressions() {
        assertThat(JaxrsRoutes.normalize("charges/{id: [0-9]{1,3}}//refund/")).isEqualTo("/charges/{id}/refund");
        assertThat(JaxrsRoutes.normalize("/")).isEqualTo("/");
        assertThat(JaxrsRoutes.normalize("{a}/{b : .+}")).isEqualTo("/{a}/{b}");
    }
}
