package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.CallerScope;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidIdempotencyKeyException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.PrincipalResolver;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.lang.reflect.Method;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.core.ParameterNameDiscoverer;

class IdempotentInterceptorTest {
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build();

    /** A request with an id. */
    public record Order(String id, long cents) {
    }

    /** The service under test. */
    public static class Orders {
        /**
         * Places an order once per id.
         *
         * @param request the order
         * @return a message
         */
        @Idempotent(operation = "place", key = "#request.id")
        public String place(Order request) {
            return "placed " + request.id();
        }

        /**
         * Same, by position.
         *
         * @param request the order
         * @return a message
         */
        @Idempotent(operation = "place-by-position", key = "#p0.id")
        public String placeByPosition(Order request) {
            return "placed " + request.id();
        }

        /**
         * A typo in the expression.
         *
         * @param request the order
         * @return a message
         */
        @Idempotent(operation = "typo", key = "#requst.id")
        public String typo(Order request) {
            return "never";
        }
    }

    private Orders proxy(ParameterNameDiscoverer names, PrincipalResolver principals, String defaultScope) {
        StaticListableBeanFactory beans = new StaticListableBeanFactory();
        beans.addBean("engine", engine);
        beans.addBean("principals", principals);
        IdempotentInterceptor interceptor = new IdempotentInterceptor(beans.getBeanProvider(IdempotencyEngine.class),
                beans.getBeanProvider(TransactionalExecutor.class), beans.getBeanProvider(PrincipalResolver.class),
                beans.getBeanProvider(CallObserver.class), defaultScope, IdempotentInterceptor.CallerSource.THREAD,
                names);
        ProxyFactory factory = new ProxyFactory(new Orders());
        factory.addAdvice(interceptor);
        return (Orders) factory.getProxy();
    }

    private static final ParameterNameDiscoverer NO_PARAMETERS_FLAG = new ParameterNameDiscoverer() {
        @Override
        public String[] getParameterNames(Method method) {
            return null;
        }

        @Override
        public String[] getParameterNames(java.lang.reflect.Constructor<?> ctor) {
            return null;
        }
    };

    @Test
    void aParameterNameWithoutMinusParametersIsAClearErrorNotARawSpelOne() {
        Orders orders = proxy(NO_PARAMETERS_FLAG, r -> Optional.of("alice"), null);
        assertThatThrownBy(() -> orders.place(new Order("o-1", 5)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("#request").hasMessageContaining("-parameters").hasMessageContaining("#p0");
        // Positional references need no names.
        assertThat(orders.placeByPosition(new Order("o-1", 5))).isEqualTo("placed o-1");
        assertThat(engine.store().find(IdempotencyKey.of("alice", "place-by-position", "o-1"))).isPresent();
    }

    @Test
    void aNameThatIsNoParameterIsNamedWithTheParametersThereAre() {
        Orders orders = proxy(new org.springframework.core.DefaultParameterNameDiscoverer(),
                r -> Optional.of("alice"), null);
        assertThatThrownBy(() -> orders.typo(new Order("o-1", 5))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("#requst").hasMessageContaining("its parameters: request");
    }

    @Test
    void theDefaultScopeIsTheCallersPrincipalAndWithoutOneTheCallIsRefused() {
        Orders alice = proxy(new org.springframework.core.DefaultParameterNameDiscoverer(),
                r -> Optional.of("alice"), null);
        Orders bob = proxy(new org.springframework.core.DefaultParameterNameDiscoverer(), r -> Optional.of("bob"), null);
        Orders nobody = proxy(new org.springframework.core.DefaultParameterNameDiscoverer(), r -> Optional.empty(),
                null);
        alice.place(new Order("o-9", 5));
        bob.place(new Order("o-9", 5));
        assertThat(engine.store().find(IdempotencyKey.of("alice", "place", "o-9"))).isPresent();
        assertThat(engine.store().find(IdempotencyKey.of("bob", "place", "o-9"))).isPresent();
        assertThatThrownBy(() -> nobody.place(new Order("o-9", 5))).isInstanceOf(MissingScopeException.class);
        Orders shared = proxy(new org.springframework.core.DefaultParameterNameDiscoverer(), r -> Optional.empty(),
                "batch");
        shared.place(new Order("o-9", 5));
        assertThat(engine.store().find(IdempotencyKey.of("batch", "place", "o-9"))).isPresent();
    }

    @Test
    void aKeyTooLongOrNotAsciiIsTheCallersError() {
        Orders orders = proxy(new org.springframework.core.DefaultParameterNameDiscoverer(),
                r -> Optional.of("alice"), null);
        assertThatThrownBy(() -> orders.place(new Order("x".repeat(256), 5)))
                .isInstanceOf(InvalidIdempotencyKeyException.class)
                .satisfies(e -> assertThat(((InvalidIdempotencyKeyException) e).httpStatus()).isEqualTo(400));
        assertThatThrownBy(() -> orders.place(new Order("caf\u00e9", 5)))
                .isInstanceOf(InvalidIdempotencyKeyException.class);
    }

    @Test
    void aLongPrincipalIsReplacedByItsDigestSoItStillFits() {
        String subject = "user-" + "x".repeat(300);
        Orders orders = proxy(new org.springframework.core.DefaultParameterNameDiscoverer(),
                r -> Optional.of(subject), null);
        assertThat(orders.place(new Order("o-long", 5))).isEqualTo("placed o-long");
        assertThat(engine.store().find(IdempotencyKey.of(CallerScope.of(subject), "place", "o-long"))).isPresent();
        assertThat(CallerScope.of(subject)).startsWith("sha256:").hasSizeLessThan(60);
    }
}
