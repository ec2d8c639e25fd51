package dev.idem.spring.boot.it;

import dev.idem.spring.Idempotent;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.www.BasicAuthenticationFilter;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application the shared Boot suite runs on each Boot generation: Spring MVC behind Spring
 * Security (HTTP Basic for alice and bob, the X-Test-User header for any other login; /open/** and
 * /service/** also anonymous, scoped by the X-Api-Key header), the JDBC store on a real PostgreSQL with a clock the test moves, and the
 * OpenTelemetry bridge exporting to memory.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({BootApp.Orders.class, BootApp.Payments.class, BootApp.Notes.class, BootApp.ChargeController.class,
        BootApp.ChargeService.class})
public class BootApp {
    @Bean
    MutableClock storeClock() {
        return new MutableClock();
    }

    @Bean
    JdbcIdempotencyStore idempotencyStore(DataSource dataSource, MutableClock storeClock) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).clock(storeClock).build();
        store.createTableIfNotExists();
        return store;
    }

    @Bean
    InitializingBean businessTables(JdbcTemplate jdbc) {
        return () -> jdbc.execute("create table if not exists payment (id bigserial primary key, ref text, "
                + "amount bigint)");
    }

    @Bean
    Gate gate() {
        return new Gate();
    }

    @Bean
    InMemorySpanExporter spanExporter() {
        return InMemorySpanExporter.create();
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(a -> a.requestMatchers("/open/**", "/service/**", "/actuator/**", "/error")
                        .permitAll().anyRequest().authenticated())
                .addFilterBefore(headerLogin(), BasicAuthenticationFilter.class)
                .httpBasic(Customizer.withDefaults())
                .csrf(c -> c.disable())
                .build();
    }

    /**
     * Logs in the user the X-Test-User header names: a login whose names HTTP Basic cannot carry
     * (a token's subject may hold a colon or be longer than a scope).
     */
    private static Filter headerLogin() {
        return (request, response, chain) -> {
            String user = ((HttpServletRequest) request).getHeader("X-Test-User");
            if (user != null) {
                SecurityContextHolder.getContext().setAuthentication(UsernamePasswordAuthenticationToken
                        .authenticated(user, null, List.of(new SimpleGrantedAuthority("ROLE_USER"))));
            }
            chain.doFilter(request, response);
        };
    }

    @Bean
    InMemoryUserDetailsManager users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("alice").password("{noop}pw").roles("USER").build(),
                User.withUsername("bob").password("{noop}pw").roles("USER").build());
    }

    /** Lets a test hold a handler of one name until it says so; counts runs per name. */
    public static class Gate {
        volatile CountDownLatch entered = new CountDownLatch(1);
        volatile CountDownLatch release = new CountDownLatch(1);
        private volatile String held;
        private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        void hold(String name) {
            entered = new CountDownLatch(1);
            release = new CountDownLatch(1);
            held = name;
        }

        int runs(String name) {
            AtomicInteger n = runs.get(name);
            return n == null ? 0 : n.get();
        }

        void pass(String name) {
            runs.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
            if (name.equals(held)) {
                held = null;
                entered.countDown();
                try {
                    if (!release.await(30, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never released " + name);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    /** Routes with a variable: one metric series, one record per order. */
    @RestController
    public static class Orders {
        private final Gate gate;

        Orders(Gate gate) {
            this.gate = gate;
        }

        @PostMapping("/orders/{id}/confirm")
        ResponseEntity<Map<String, Object>> confirm(@PathVariable("id") String id) {
            gate.pass("order-" + id);
            return ResponseEntity.status(HttpStatus.CREATED)
                    .body(Map.of("order", id, "confirmation", UUID.randomUUID().toString()));
        }
    }

    /** A transactional route: the payment row and the record commit together. */
    @RestController
    public static class Payments {
        private final JdbcTemplate jdbc;
        private final Gate gate;

        Payments(JdbcTemplate jdbc, Gate gate) {
            this.jdbc = jdbc;
            this.gate = gate;
        }

        @PostMapping("/payments")
        ResponseEntity<Map<String, Object>> pay(@RequestBody Map<String, Object> body) {
            String ref = String.valueOf(body.get("ref"));
            jdbc.update("insert into payment(ref, amount) values (?, ?)", ref,
                    ((Number) body.get("amount")).longValue());
            gate.pass("payment-" + ref);
            return ResponseEntity.status(HttpStatus.CREATED)
                    .body(Map.of("payment", UUID.randomUUID().toString(), "ref", ref));
        }
    }

    /** An anonymous route, scoped by the API-key header. */
    @RestController
    public static class Notes {
        @PostMapping(value = "/open/notes", consumes = "application/json")
        ResponseEntity<Map<String, Object>> note(@RequestBody Map<String, Object> body) {
            return ResponseEntity.status(HttpStatus.CREATED)
                    .body(Map.of("note", UUID.randomUUID().toString(), "text", String.valueOf(body.get("text"))));
        }
    }

    /** A charge request; the reference is the client's key. */
    public record ChargeRequest(String reference, long amount) {
    }

    /** A charge. */
    public record Charge(String id, String reference, long amount) {
    }

    /** Not covered by the filter: @Idempotent alone decides. */
    @RestController
    public static class ChargeController {
        private final ChargeService charges;

        ChargeController(ChargeService charges) {
            this.charges = charges;
        }

        @PostMapping("/service/charges")
        ResponseEntity<Charge> charge(@RequestBody ChargeRequest request) {
            return ResponseEntity.status(HttpStatus.CREATED).body(charges.charge(request));
        }
    }

    /** Scoped by the caller's principal, as the filter is. */
    public static class ChargeService {
        private final Gate gate;

        ChargeService(Gate gate) {
            this.gate = gate;
        }

        @Idempotent(operation = "charge", key = "#request.reference")
        public Charge charge(ChargeRequest request) {
            gate.pass("charge-" + request.reference());
            return new Charge("ch_" + UUID.randomUUID(), request.reference(), request.amount());
        }
    }
}
