package dev.idem.spring.boot.redis;

import dev.idem.spring.Idempotent;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application as its README would have it written: Spring MVC, Spring Data Redis (Lettuce),
 * the idem starter, no store bean and no Redis client of its own. A route behind the
 * Idempotency-Key filter and an {@code @Idempotent} service method, each counting its runs.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(RedisApp.Orders.class)
public class RedisApp {
    @Bean
    Runs runs() {
        return new Runs();
    }

    @Bean
    ChargeService chargeService(Runs runs) {
        return new ChargeService(runs);
    }

    /** Runs per name. */
    public static class Runs {
        private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        void ran(String name) {
            runs.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
        }

        int of(String name) {
            AtomicInteger n = runs.get(name);
            return n == null ? 0 : n.get();
        }
    }

    /** Behind the filter ({@code idem.http.routes}). */
    @RestController
    public static class Orders {
        private final Runs runs;

        Orders(Runs runs) {
            this.runs = runs;
        }

        @PostMapping("/orders/{id}/confirm")
        ResponseEntity<Map<String, Object>> confirm(@PathVariable("id") String id, @RequestBody Map<String, Object> body) {
            runs.ran("order-" + id);
            return ResponseEntity.status(HttpStatus.CREATED)
                    .body(Map.of("order", id, "confirmation", UUID.randomUUID().toString()));
        }
    }

    /** Called by the test directly: {@code @Idempotent} alone decides, in the scope the expression gives. */
    public static class ChargeService {
        private final Runs runs;

        ChargeService(Runs runs) {
            this.runs = runs;
        }

        @Idempotent(operation = "charge", key = "#reference", scope = "'tenant-1'")
        public String charge(String reference, long amount) {
            runs.ran("charge-" + reference);
            return "ch_" + UUID.randomUUID() + ":" + amount;
        }
    }
}
