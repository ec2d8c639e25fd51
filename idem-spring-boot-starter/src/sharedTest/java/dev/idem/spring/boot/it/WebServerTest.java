package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A real Spring Boot application on an embedded Tomcat, behind Spring Security, with the
 * filter registered from {@code idem.http.routes}; requests go over HTTP.
 */
@SpringBootTest(classes = WebServerTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"idem.http.routes=/charges", "idem.store.kind=memory", "spring.main.banner-mode=off"})
class WebServerTest {
    private static final ExecutorService POOL = Executors.newFixedThreadPool(8);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @LocalServerPort
    int port;

    @Autowired
    Gate gate;

    @AfterAll
    static void stopPool() {
        POOL.shutdownNow();
    }

    private HttpResponse<String> post(String user, String key, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/charges"))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (user != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    (user + ":pw").getBytes(StandardCharsets.UTF_8)));
        }
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void concurrentDuplicatesRunOnceThenReplay() throws Exception {
        gate.hold("dup-1");
        Future<HttpResponse<String>> first = POOL.submit(() -> post("alice", "dup-1", "{\"amount\":100}"));
        assertThat(gate.entered.await(20, TimeUnit.SECONDS)).isTrue();

        // While the first still runs, every duplicate is told to come back later.
        int duplicates = 6;
        CyclicBarrier start = new CyclicBarrier(duplicates);
        List<Future<HttpResponse<String>>> dups = new ArrayList<>();
        for (int i = 0; i < duplicates; i++) {
            dups.add(POOL.submit(() -> {
                start.await(20, TimeUnit.SECONDS);
                return post("alice", "dup-1", "{ \"amount\": 100 }");
            }));
        }
        for (Future<HttpResponse<String>> d : dups) {
            HttpResponse<String> r = d.get(30, TimeUnit.SECONDS);
            assertThat(r.statusCode()).isEqualTo(409);
            assertThat(r.headers().firstValue("Retry-After")).isPresent();
        }
        gate.release.countDown();
        HttpResponse<String> created = first.get(30, TimeUnit.SECONDS);
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.headers().firstValue("Idempotency-Status")).hasValue("stored");

        HttpResponse<String> replay = post("alice", "dup-1", "{\"amount\":100.0}");
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(replay.headers().firstValue("Idempotency-Status")).hasValue("replayed");
        assertThat(replay.body()).isEqualTo(created.body());
        assertThat(gate.runs("dup-1")).isEqualTo(1);

        // The same key with another payload is refused; another user's same key is another intent.
        assertThat(post("alice", "dup-1", "{\"amount\":999}").statusCode()).isEqualTo(422);
        assertThat(post("bob", "dup-1", "{\"amount\":100}").statusCode()).isEqualTo(201);
        assertThat(gate.runs("dup-1")).isEqualTo(2);
    }

    @Test
    void simultaneousDuplicatesExecuteExactlyOnce() throws Exception {
        int n = 8;
        CyclicBarrier start = new CyclicBarrier(n);
        List<Future<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(POOL.submit(() -> {
                start.await(20, TimeUnit.SECONDS);
                return post("alice", "race-1", "{\"amount\":5}");
            }));
        }
        int created = 0;
        for (Future<HttpResponse<String>> f : all) {
            int status = f.get(30, TimeUnit.SECONDS).statusCode();
            assertThat(status).isIn(201, 409);
            created += status == 201 ? 1 : 0;
        }
        assertThat(created).isGreaterThanOrEqualTo(1);
        assertThat(gate.runs("race-1")).isEqualTo(1);
    }

    @Test
    void missingKeyAndMissingLogin() throws Exception {
        assertThat(post("alice", null, "{}").statusCode()).isEqualTo(400);
        assertThat(post(null, "k-anon", "{}").statusCode()).isEqualTo(401);
        assertThat(gate.runs("k-anon")).isZero();
    }

    /** Lets a test hold the handler of one key until it says so; counts runs per key. */
    static class Gate {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private volatile String held;
        private final Map<String, AtomicInteger> runs = new java.util.concurrent.ConcurrentHashMap<>();

        void hold(String key) {
            held = key;
        }

        int runs(String key) {
            AtomicInteger n = runs.get(key);
            return n == null ? 0 : n.get();
        }

        void pass(String key) throws InterruptedException {
            runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            if (key.equals(held)) {
                entered.countDown();
                if (!release.await(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released " + key);
                }
            }
        }
    }

    @RestController
    static class Charges {
        private final Gate gate;
        private final AtomicInteger ids = new AtomicInteger();

        Charges(Gate gate) {
            this.gate = gate;
        }

        @PostMapping("/charges")
        ResponseEntity<Map<String, Object>> create(@RequestBody Map<String, Object> body,
                @org.springframework.web.bind.annotation.RequestHeader("Idempotency-Key") String key)
                throws InterruptedException {
            gate.pass(key);
            return ResponseEntity.status(HttpStatus.CREATED)
                    .body(Map.of("id", "ch_" + ids.incrementAndGet(), "amount", body.get("amount")));
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Charges.class)
    static class App {
        @Bean
        Gate gate() {
            return new Gate();
        }

        @Bean
        SecurityFilterChain security(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
                    .httpBasic(Customizer.withDefaults())
                    .csrf(c -> c.disable())
                    .build();
        }

        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("alice").password("{noop}pw").roles("USER").build(),
                    User.withUsername("bob").password("{noop}pw").roles("USER").build());
        }
    }
}
