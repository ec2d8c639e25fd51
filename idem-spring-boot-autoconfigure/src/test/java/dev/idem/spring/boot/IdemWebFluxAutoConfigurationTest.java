package dev.idem.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.http.HttpIdempotency;
import dev.idem.spring.Idempotent;
import dev.idem.spring.webflux.IdempotencyWebFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The reactive side of the starter: the WebFilter in reactive applications only, and startup checks. */
class IdemWebFluxAutoConfigurationTest {
    private static final AutoConfigurations IDEM = AutoConfigurations.of(IdemAutoConfiguration.class,
            IdemAopAutoConfiguration.class, IdemWebAutoConfiguration.class, IdemWebFluxAutoConfiguration.class);

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

    /** A bean whose reactive method idem runs once. */
    public static class Payments {
        /**
         * A payment.
         *
         * @param id an id
         * @return the payment
         */
        @Idempotent(operation = "pay", key = "#p0")
        public Mono<String> pay(String id) {
            return Mono.just(id);
        }
    }

    @Test
    void aReactiveApplicationGetsTheWebFilterOnItsRoutes() {
        new ReactiveWebApplicationContextRunner().withConfiguration(IDEM)
                .withPropertyValues("idem.http.routes=/orders/**", "idem.http.order=-50")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(IdempotencyWebFilter.class)
                            .hasSingleBean(HttpIdempotency.class);
                    assertThat(context.getBean(IdempotencyWebFilter.class).getOrder()).isEqualTo(-50);
                });
    }

    @Test
    void servletAndNonWebApplicationsGetNoWebFilter() {
        new WebApplicationContextRunner().withConfiguration(IDEM)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyWebFilter.class));
        new ApplicationContextRunner().withConfiguration(IDEM)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyWebFilter.class));
    }

    @Test
    void theBlockingTransactionalModeIsRefusedInAReactiveApplication() {
        new ReactiveWebApplicationContextRunner().withConfiguration(IDEM)
                .withPropertyValues("idem.http.routes=/orders/**", "idem.http.transactional=true")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("idem.http.transactional").hasMessageContaining("WebFlux"));
    }

    @Test
    void anIdempotentMethodReturningAFluxFailsTheStartupWithAMessage() {
        new ApplicationContextRunner().withConfiguration(IDEM).withBean(Streams.class)
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining(Streams.class.getName() + ".stream")
                        .hasMessageContaining("reactor.core.publisher.Flux").hasMessageContaining("collectList"));
        new ApplicationContextRunner().withConfiguration(IDEM).withBean(Payments.class)
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Payments.class));
    }
}
