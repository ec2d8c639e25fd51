package dev.idem.spring.boot.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.Idempotent;
import dev.idem.spring.boot.IdemAopAutoConfiguration;
import dev.idem.spring.boot.IdemAutoConfiguration;
import dev.idem.spring.boot.IdemFailureAnalyzer;
import dev.idem.spring.boot.IdemWebFluxAutoConfiguration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableReactiveWebApplicationContext;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The startup refusals of a reactive application, on a class path without the servlet API: each
 * is reported by {@link IdemFailureAnalyzer} with a description naming the {@code idem.*}
 * property or the annotated method at fault, and an action.
 */
class ReactiveStartupRefusalsTest {
    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class,
                    IdemWebFluxAutoConfiguration.class, WebFluxAutoConfiguration.class))
            .withPropertyValues("idem.store.kind=memory");

    /** A service whose future names no scope. */
    public static class Unscoped {
        /**
         * A charge.
         *
         * @param id the charge id
         * @return the charge
         */
        @Idempotent(operation = "charge", key = "#id")
        public CompletableFuture<String> charge(String id) {
            return CompletableFuture.completedFuture(id);
        }
    }

    /** A service whose Mono needs no scope: its caller is the subscriber's. */
    public static class MonoService {
        /**
         * A charge.
         *
         * @param id the charge id
         * @return the charge
         */
        @Idempotent(operation = "charge", key = "#id")
        public Mono<String> charge(String id) {
            return Mono.just(id);
        }
    }

    /** Handlers that stream. */
    @RestController
    public static class Feeds {
        /**
         * Events, by the mapping's media type.
         *
         * @return events
         */
        @PostMapping(value = "/feeds/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
        public Flux<String> events() {
            return Flux.never();
        }

        /**
         * Events, by the return type.
         *
         * @return events
         */
        @PostMapping("/alerts/events")
        public Flux<ServerSentEvent<String>> alerts() {
            return Flux.never();
        }

        /**
         * A finite answer.
         *
         * @return the answer
         */
        @PostMapping("/orders/{id}")
        public Mono<String> order() {
            return Mono.just("ok");
        }
    }

    private static FailureAnalysis report(AssertableReactiveWebApplicationContext context) {
        assertThat(context).hasFailed();
        FailureAnalysis analysis = new IdemFailureAnalyzer().analyze(context.getStartupFailure());
        assertThat(analysis).as("idem's failure analysis").isNotNull();
        return analysis;
    }

    @Test
    void aMethodReturningNoMonoWithoutAScopeIsRefusedEvenWithADefaultScope() {
        // Before: every caller got 401, or, with a default scope, all logged-in callers shared one record.
        runner.withBean(Unscoped.class).withPropertyValues("idem.aop.default-scope=shared").run(context -> {
            FailureAnalysis report = report(context);
            assertThat(report.getDescription()).contains("@Idempotent on " + Unscoped.class.getName() + ".charge")
                    .contains("CompletableFuture").contains("reactive application");
            assertThat(report.getAction()).contains("Return a Mono").contains("scope = \"#caller.name\"")
                    .contains("java.security.Principal");
        });
        runner.withBean(MonoService.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aCoveredRouteWhoseHandlerStreamsIsRefused() {
        runner.withBean(Feeds.class).withPropertyValues("idem.http.routes=/orders/**,/feeds/**").run(context -> {
            FailureAnalysis report = report(context);
            assertThat(report.getDescription()).contains("idem.http.routes[1]='/feeds/**' covers /feeds/events")
                    .contains("Feeds.events").contains("text/event-stream");
            assertThat(report.getAction()).contains("Narrow idem.http.routes[1]").contains("Mono");
        });
        runner.withBean(Feeds.class).withPropertyValues("idem.http.routes=/alerts/**").run(context ->
                assertThat(report(context).getDescription()).contains("Feeds.alerts").contains("server-sent events"));
        runner.withBean(Feeds.class).withPropertyValues("idem.http.routes=/orders/**")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aRouteThatCoversNothingIsRefused() {
        runner.withBean(Feeds.class).withPropertyValues("idem.http.routes=/order/**").run(context -> {
            FailureAnalysis report = report(context);
            assertThat(report.getDescription()).contains("idem.http.routes[0]='/order/**' covers none")
                    .contains("WebFlux").contains("/orders/{id}");
            assertThat(report.getAction()).contains("idem.http.routes[0]");
        });
    }

    @Test
    void theTransactionalModeIsRefusedInAReactiveApplication() {
        runner.withPropertyValues("idem.http.routes=/orders/**", "idem.http.transactional-routes=/orders/**")
                .run(context -> {
                    FailureAnalysis report = report(context);
                    assertThat(report.getDescription()).contains("idem.http.transactional-routes");
                    assertThat(report.getAction()).contains("Remove idem.http.transactional-routes");
                });
    }
}
