package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.PrincipalResolver;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@link Idempotent} on methods returning {@code Mono}, {@code CompletionStage} and
 * {@code CompletableFuture}: the outcome inside is stored and replayed (not the wrapper), a
 * failure releases the key, the method body runs once per claim and only when subscribed, and
 * any other asynchronous or reactive return type is refused with a message.
 */
class AsyncIdempotentMethodsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
            .build();

    /** A payment, stored as JSON. */
    public record Payment(String id, long cents, int run) {
    }

    /** The reactive service under test. */
    public static class Payments {
        final AtomicInteger runs = new AtomicInteger();
        final AtomicInteger failures = new AtomicInteger();

        /**
         * Pays once per id.
         *
         * @param id the payment id
         * @return the payment
         */
        @Idempotent(operation = "pay", key = "#p0")
        public Mono<Payment> pay(String id) {
            int run = runs.incrementAndGet();
            return Mono.fromSupplier(() -> new Payment(id, 500, run));
        }

        /**
         * Fails with a checked exception the first time.
         *
         * @param id the payment id
         * @return the payment
         */
        @Idempotent(operation = "flaky", key = "#p0")
        public Mono<Payment> flaky(String id) {
            int run = runs.incrementAndGet();
            if (failures.getAndIncrement() == 0) {
                return Mono.error(new IOException("gateway timeout"));
            }
            return Mono.just(new Payment(id, 1, run));
        }

        /**
         * The subscriber's user, from Spring Security's reactive context.
         *
         * @param id the payment id
         * @return the payment
         */
        @Idempotent(operation = "mine", key = "#p0")
        public Mono<String> mine(String id) {
            runs.incrementAndGet();
            return Mono.just("paid " + id);
        }

        /**
         * A future.
         *
         * @param id the payment id
         * @return the payment
         */
        @Idempotent(operation = "future", key = "#p0")
        public CompletableFuture<Payment> future(String id) {
            int run = runs.incrementAndGet();
            return CompletableFuture.supplyAsync(() -> new Payment(id, 7, run));
        }

        /**
         * A stage that fails.
         *
         * @param id the payment id
         * @return never a payment
         */
        @Idempotent(operation = "stage", key = "#p0")
        public CompletionStage<Payment> failingStage(String id) {
            runs.incrementAndGet();
            return CompletableFuture.failedFuture(new IllegalStateException("declined by the bank"));
        }
    }

    /** A service with a return type idem cannot run once. */
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

    /** A reactive application's service: only a Mono sees the caller (at subscription). */
    public static class ReactiveService {
        final AtomicInteger runs = new AtomicInteger();

        /**
         * A future without a scope.
         *
         * @param id the payment id
         * @return the payment
         */
        @Idempotent(operation = "unscoped", key = "#p0")
        public CompletableFuture<String> unscoped(String id) {
            return CompletableFuture.completedFuture("paid " + id + " " + runs.incrementAndGet());
        }

        /**
         * A plain value without a scope.
         *
         * @param id the payment id
         * @return the payment
         */
        @Idempotent(operation = "plain", key = "#p0")
        public String plain(String id) {
            return "paid " + id + " " + runs.incrementAndGet();
        }

        /**
         * A future scoped by the caller it is given.
         *
         * @param caller the caller
         * @param id the payment id
         * @return the payment
         */
        @Idempotent(operation = "scoped", key = "#p1", scope = "#p0", request = "#p1")
        public CompletableFuture<String> scoped(String caller, String id) {
            return CompletableFuture.completedFuture("paid " + id + " " + runs.incrementAndGet());
        }

        /**
         * A Mono: scoped at subscription.
         *
         * @param id the payment id
         * @return the payment
         */
        @Idempotent(operation = "mono", key = "#p0")
        public Mono<String> mono(String id) {
            return Mono.fromSupplier(() -> "paid " + id + " " + runs.incrementAndGet());
        }

        /**
         * The README's scope pattern: a WebFlux controller's Principal argument, null for an anonymous caller.
         *
         * @param caller the caller, or null
         * @param id the payment id
         * @return the payment
         */
        @Idempotent(operation = "by-principal", key = "#p1", scope = "#p0.name", request = "#p1")
        public CompletableFuture<String> byPrincipal(java.security.Principal caller, String id) {
            return CompletableFuture.completedFuture("paid " + id + " " + runs.incrementAndGet());
        }

        /**
         * The same pattern on a Mono.
         *
         * @param caller the caller, or null
         * @param id the payment id
         * @return the payment
         */
        @Idempotent(operation = "mono-by-principal", key = "#p1", scope = "#p0.name", request = "#p1")
        public Mono<String> monoByPrincipal(java.security.Principal caller, String id) {
            return Mono.fromSupplier(() -> "paid " + id + " " + runs.incrementAndGet());
        }
    }

    @Test
    void aScopeExpressionWithNoCallerAnswersAsAMissingPrincipalNotAnExpressionError() throws Exception {
        // The defect: scope = "#caller.name" with an anonymous caller failed with SpEL's EL1007E (500).
        ReactiveService target = new ReactiveService();
        ReactiveService refusing = proxy(target, r -> Optional.empty(), IdempotentInterceptor.CallerSource.REACTIVE,
                null);

        assertThatThrownBy(() -> refusing.byPrincipal(null, "p-5")).isInstanceOf(MissingScopeException.class);
        assertThatThrownBy(() -> refusing.monoByPrincipal(null, "p-5").block(WAIT))
                .isInstanceOf(MissingScopeException.class);
        assertThat(target.runs).hasValue(0);
        assertThat(refusing.byPrincipal(() -> "erin", "p-5").get(20, TimeUnit.SECONDS)).isEqualTo("paid p-5 1");

        ReactiveService shared = proxy(target, r -> Optional.empty(), IdempotentInterceptor.CallerSource.REACTIVE,
                "batch");
        assertThat(shared.byPrincipal(null, "p-6").get(20, TimeUnit.SECONDS)).isEqualTo("paid p-6 2");
        assertThat(shared.monoByPrincipal(null, "p-7").block(WAIT)).isEqualTo("paid p-7 3");
        assertThat(engine.store().find(IdempotencyKey.of("batch", "by-principal", "p-6"))).isPresent();
    }

    @Test
    void inAReactiveApplicationAMethodThatReturnsNoMonoMustNameItsScope() throws Exception {
        // The defect: with a default scope every logged-in caller of such a method shared one record.
        ReactiveService target = new ReactiveService();
        ReactiveService service = proxy(target, r -> Optional.of("whoever-the-thread-had"),
                IdempotentInterceptor.CallerSource.REACTIVE, "shared");

        assertThatThrownBy(() -> service.unscoped("p-1")).isInstanceOf(IdemConfigurationException.class)
                .hasMessageContaining("ReactiveService.unscoped").hasMessageContaining("scope = ")
                .hasMessageContaining("Mono");
        assertThatThrownBy(() -> service.plain("p-1")).isInstanceOf(IdemConfigurationException.class);
        assertThat(target.runs).hasValue(0);

        assertThat(service.scoped("alice", "p-2").get(20, TimeUnit.SECONDS)).isEqualTo("paid p-2 1");
        assertThat(service.scoped("alice", "p-2").get(20, TimeUnit.SECONDS)).isEqualTo("paid p-2 1");
        assertThat(service.scoped("bob", "p-2").get(20, TimeUnit.SECONDS)).isEqualTo("paid p-2 2");
        assertThat(engine.store().find(IdempotencyKey.of("bob", "scoped", "p-2"))).isPresent();
    }

    @Test
    void inAReactiveApplicationAMonosCallerIsTheReactiveUserNeverTheThreads() {
        ReactiveService target = new ReactiveService();
        ReactiveService service = proxy(target, r -> Optional.of("whoever-the-thread-had"),
                IdempotentInterceptor.CallerSource.REACTIVE, null);

        String carol = service.mono("p-3").contextWrite(ReactiveSecurityContextHolder.withAuthentication(
                new TestingAuthenticationToken("carol", "n/a", "ROLE_USER"))).block(WAIT);
        String dave = service.mono("p-3").contextWrite(ReactiveSecurityContextHolder.withAuthentication(
                new TestingAuthenticationToken("dave", "n/a", "ROLE_USER"))).block(WAIT);

        assertThat(List.of(carol, dave)).containsExactly("paid p-3 1", "paid p-3 2");
        assertThat(engine.store().find(IdempotencyKey.of("whoever-the-thread-had", "mono", "p-3"))).isEmpty();
        assertThatThrownBy(() -> service.mono("p-4").block(WAIT)).isInstanceOf(MissingScopeException.class);
    }

    @AfterEach
    void close() {
        engine.close();
    }

    private <T> T proxy(T target, PrincipalResolver principals) {
        return proxy(target, principals, IdempotentInterceptor.CallerSource.THREAD, null);
    }

    private <T> T proxy(T target, PrincipalResolver principals, IdempotentInterceptor.CallerSource callers,
            String defaultScope) {
        StaticListableBeanFactory beans = new StaticListableBeanFactory();
        beans.addBean("engine", engine);
        beans.addBean("principals", principals);
        IdempotentInterceptor interceptor = new IdempotentInterceptor(beans.getBeanProvider(IdempotencyEngine.class),
                beans.getBeanProvider(TransactionalExecutor.class), beans.getBeanProvider(PrincipalResolver.class),
                beans.getBeanProvider(CallObserver.class), defaultScope, callers, new DefaultParameterNameDiscoverer());
        ProxyFactory factory = new ProxyFactory(target);
        factory.addAdvice(interceptor);
        @SuppressWarnings("unchecked")
        T proxy = (T) factory.getProxy();
        return proxy;
    }

    @Test
    void aMonoIsLazyRunsOnceAndItsValueIsReplayedNotTheMono() {
        Payments target = new Payments();
        Payments payments = proxy(target, r -> Optional.of("alice"));

        Mono<Payment> first = payments.pay("p-1");
        assertThat(target.runs).hasValue(0);
        List<Payment> three = List.of(first.block(WAIT), payments.pay("p-1").block(WAIT),
                payments.pay("p-1").block(WAIT));

        assertThat(three).containsOnly(new Payment("p-1", 500, 1));
        assertThat(target.runs).hasValue(1);
        assertThat(engine.store().find(IdempotencyKey.of("alice", "pay", "p-1"))).isPresent();
    }

    @Test
    void aFailedMonoReleasesTheKeyAndFailsWithWhatTheMethodFailedWith() {
        Payments target = new Payments();
        Payments payments = proxy(target, r -> Optional.of("alice"));

        assertThatThrownBy(() -> payments.flaky("p-2").block(WAIT)).hasRootCauseInstanceOf(IOException.class)
                .hasRootCauseMessage("gateway timeout");
        assertThat(payments.flaky("p-2").block(WAIT)).isEqualTo(new Payment("p-2", 1, 2));
        assertThat(payments.flaky("p-2").block(WAIT)).isEqualTo(new Payment("p-2", 1, 2));
        assertThat(target.runs).hasValue(2);
    }

    @Test
    void aMonosScopeIsTheReactiveSecurityUserWhenNoThreadCallerIsKnown() {
        Payments target = new Payments();
        Payments payments = proxy(target, r -> Optional.empty());

        String paid = payments.mine("p-3")
                .contextWrite(ReactiveSecurityContextHolder.withAuthentication(
                        new TestingAuthenticationToken("carol", "n/a", "ROLE_USER")))
                .block(WAIT);

        assertThat(paid).isEqualTo("paid p-3");
        assertThat(engine.store().find(IdempotencyKey.of("carol", "mine", "p-3"))).isPresent();
        assertThatThrownBy(() -> payments.mine("p-4").block(WAIT)).isInstanceOf(MissingScopeException.class);
        assertThat(target.runs).hasValue(1);
    }

    @Test
    void aCompletableFutureIsRunOnceAndItsValueReplayed() throws Exception {
        Payments target = new Payments();
        Payments payments = proxy(target, r -> Optional.of("alice"));

        Payment a = payments.future("p-5").get(20, TimeUnit.SECONDS);
        Payment b = payments.future("p-5").get(20, TimeUnit.SECONDS);

        assertThat(b).isEqualTo(a).isEqualTo(new Payment("p-5", 7, 1));
        assertThat(target.runs).hasValue(1);
    }

    @Test
    void aFailedStageFailsWithItsOwnExceptionAndReleasesTheKey() {
        Payments target = new Payments();
        Payments payments = proxy(target, r -> Optional.of("alice"));

        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> payments.failingStage("p-6").toCompletableFuture().get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(IllegalStateException.class)
                    .hasMessage("declined by the bank");
        }
        assertThat(target.runs).hasValue(2);
    }

    @Test
    void aReturnTypeItCannotRunOnceIsRefusedWithAMessage() throws Exception {
        Streams streams = proxy(new Streams(), r -> Optional.of("alice"));

        assertThatThrownBy(() -> streams.stream("s-1")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Flux").hasMessageContaining("Mono").hasMessageContaining("collectList");
        assertThatThrownBy(() -> IdempotentInterceptor.checkReturnType(Streams.class.getMethod("stream", String.class)))
                .isInstanceOf(IllegalStateException.class);
        IdempotentInterceptor.checkReturnType(Payments.class.getMethod("pay", String.class));
    }
}
