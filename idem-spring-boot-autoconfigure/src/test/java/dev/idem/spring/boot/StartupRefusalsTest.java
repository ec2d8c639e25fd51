package dev.idem.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.Idempotent;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.http.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.DispatcherServletAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.pattern.PatternParseException;
import reactor.core.publisher.Flux;
import redis.clients.jedis.JedisPooled;

/**
 * Every startup refusal of idem's own on the servlet side is reported by {@link IdemFailureAnalyzer}
 * with a description that names the {@code idem.*} property or the annotated method at fault and
 * an action: read here as Boot's failure report prints them. (The reactive refusals are read in
 * idem-spring-boot-tests-webflux, on a class path without the servlet API.)
 */
class StartupRefusalsTest {
    private static final AutoConfigurations IDEM = AutoConfigurations.of(IdemAutoConfiguration.class,
            IdemAopAutoConfiguration.class, IdemWebAutoConfiguration.class);
    private static final AutoConfigurations MVC = AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
            WebMvcAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class);
    private static final AutoConfigurations JDBC = AutoConfigurations.of(DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class);

    /** A transactional method. */
    public static class Payments {
        /**
         * Pays once per id, in the transactional mode.
         *
         * @param id the payment id
         * @return a message
         */
        @Idempotent(operation = "pay", key = "#id", transactional = true)
        public String pay(String id) {
            return "paid " + id;
        }
    }

    /** A bean with a return type idem cannot run once. */
    public static class Streams {
        /**
         * A stream.
         *
         * @param id an id
         * @return events
         */
        @Idempotent(operation = "stream", key = "#p0")
        public Flux<String> stream(String id) {
            return Flux.just(id);
        }
    }

    /** A controller with one route. */
    @RestController
    public static class Orders {
        /**
         * Confirms an order.
         *
         * @return a message
         */
        @PostMapping("/orders/{id}/confirm")
        public String confirm() {
            return "confirmed";
        }
    }

    /** Boot's report of the startup failure, as idem's analyzer makes it. */
    static FailureAnalysis report(ApplicationContextAssertProvider<?> context) {
        assertThat(context.getStartupFailure()).as("startup failure").isNotNull();
        return analyze(context.getStartupFailure());
    }

    private static FailureAnalysis analyze(Throwable failure) {
        FailureAnalysis analysis = new IdemFailureAnalyzer().analyze(failure);
        assertThat(analysis).as("idem's failure analysis").isNotNull();
        return analysis;
    }

    @Test
    @SuppressWarnings("deprecation") // JedisPooled: the client of Boot 3.5's Jedis line
    void theTransactionalModeOfFilterRoutesOverRedisIsRefusedAtStartupNotAnsweredWith500s() {
        new WebApplicationContextRunner().withConfiguration(IDEM).withConfiguration(JDBC)
                .withBean(JedisPooled.class, () -> new JedisPooled("127.0.0.1", 1))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:refusal1;DB_CLOSE_DELAY=-1",
                        "idem.store.kind=redis", "idem.http.transactional-routes=/payments")
                .run(context -> {
                    FailureAnalysis report = report(context);
                    assertThat(report.getDescription()).contains("idem.http.transactional-routes")
                            .contains("the idempotency store is not the JDBC store");
                    assertThat(report.getAction()).contains("idem-store-jdbc").contains("idem.store.kind")
                            .contains("remove idem.http.transactional-routes");
                });
        new WebApplicationContextRunner().withConfiguration(IDEM).withConfiguration(JDBC)
                .withBean(JedisPooled.class, () -> new JedisPooled("127.0.0.1", 1))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:refusal2;DB_CLOSE_DELAY=-1",
                        "idem.store.kind=redis", "idem.http.transactional=true")
                .run(context -> assertThat(report(context).getDescription()).contains("idem.http.transactional "));
        // The same over Spring Data Redis' factory (Boot's default, Lettuce underneath), the client most
        // Spring applications have.
        new WebApplicationContextRunner().withConfiguration(IDEM).withConfiguration(JDBC)
                .withBean(RedisConnectionFactory.class, () -> new LettuceConnectionFactory("127.0.0.1", 1))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:refusal4;DB_CLOSE_DELAY=-1",
                        "idem.store.kind=redis", "idem.http.transactional-routes=/payments")
                .run(context -> assertThat(report(context).getDescription())
                        .contains("idem.http.transactional-routes")
                        .contains("the idempotency store is not the JDBC store"));
    }

    @Test
    @SuppressWarnings("deprecation") // JedisPooled: the client of Boot 3.5's Jedis line
    void aTransactionalIdempotentMethodOverRedisIsRefusedAtStartup() {
        new ApplicationContextRunner().withConfiguration(IDEM).withConfiguration(JDBC)
                .withBean(JedisPooled.class, () -> new JedisPooled("127.0.0.1", 1))
                .withBean(Payments.class)
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:refusal3;DB_CLOSE_DELAY=-1",
                        "idem.store.kind=redis", "idem.aop.default-scope=jobs")
                .run(context -> {
                    FailureAnalysis report = report(context);
                    assertThat(report.getDescription()).contains("@Idempotent(transactional = true) on "
                            + Payments.class.getName() + ".pay").contains("not the JDBC store");
                    assertThat(report.getAction()).contains("remove transactional = true");
                });
        // Over the JDBC store the same method starts and runs.
        new ApplicationContextRunner().withConfiguration(IDEM).withConfiguration(JDBC).withBean(Payments.class)
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:refusal4;DB_CLOSE_DELAY=-1",
                        "idem.store.jdbc.create-table=true", "idem.aop.default-scope=jobs", "idem.purge.enabled=false")
                .run(context -> assertThat(context.getBean(Payments.class).pay("p-1")).isEqualTo("paid p-1"));
    }

    @Test
    void aMalformedRouteIsIdemsReportNotSpringMvcsPathMatchAdvice() {
        new WebApplicationContextRunner().withConfiguration(IDEM)
                .withPropertyValues("idem.store.kind=memory", "idem.http.routes=/charges,/orders/{id")
                .run(context -> {
                    FailureAnalysis report = report(context);
                    assertThat(report.getDescription())
                            .contains("idem.http.routes[1]='/orders/{id' is not a Spring path pattern");
                    assertThat(report.getAction()).contains("idem.http.routes[1]").contains("/orders/**")
                            .doesNotContain("spring.mvc");
                    // Boot's own analyzer for PatternParseException (advice on spring.mvc.pathmatch) finds nothing.
                    assertThat(context.getStartupFailure()).satisfies(f -> {
                        for (Throwable t = f; t != null; t = t.getCause()) {
                            assertThat(t).isNotInstanceOf(PatternParseException.class);
                        }
                    });
                });
    }

    @Test
    void aRouteThatCoversNoMappingIsRefusedNamingTheMappingsThereAre() {
        new WebApplicationContextRunner().withConfiguration(IDEM).withConfiguration(MVC).withBean(Orders.class)
                .withPropertyValues("idem.store.kind=memory", "idem.http.routes=/orders/*")
                .run(context -> {
                    FailureAnalysis report = report(context);
                    assertThat(report.getDescription()).contains("idem.http.routes[0]='/orders/*' covers none")
                            .contains("/orders/{id}/confirm");
                    assertThat(report.getAction()).contains("/orders/**");
                });
        new WebApplicationContextRunner().withConfiguration(IDEM).withConfiguration(MVC).withBean(Orders.class)
                .withPropertyValues("idem.store.kind=memory", "idem.http.routes=/orders/**,/orders/{id}/confirm")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void anIdempotentMethodReturningAFluxIsRefusedNamingTheMethod() {
        new ApplicationContextRunner().withConfiguration(IDEM).withBean(Streams.class)
                .withPropertyValues("idem.store.kind=memory")
                .run(context -> {
                    FailureAnalysis report = report(context);
                    assertThat(report.getDescription()).contains("@Idempotent on " + Streams.class.getName()
                            + ".stream").contains("reactor.core.publisher.Flux");
                    assertThat(report.getAction()).contains("Mono").contains("collectList()");
                });
    }
}
