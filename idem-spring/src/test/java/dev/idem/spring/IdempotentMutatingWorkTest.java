package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.RecordState;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.PrincipalResolver;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.core.DefaultParameterNameDiscoverer;

/**
 * An {@link Idempotent} method whose key comes from its request ({@code key = "#order.id"}) and
 * which changes that request while it runs: the key and the fingerprint are taken before it
 * runs, so its completion goes to the record of the key the request came with, and a retry with
 * the request as the client sent it replays (a peer derived the key again from the changed
 * request: the original record stayed in progress, expired, and the work ran twice).
 */
class IdempotentMutatingWorkTest {
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();

    /** A mutable request, as a controller gets one bound from JSON. */
    public static class Order {
        private String id;
        private long amountCents;

        /** For Jackson. */
        public Order() {
        }

        Order(String id, long amountCents) {
            this.id = id;
            this.amountCents = amountCents;
        }

        /**
         * The id.
         *
         * @return the id
         */
        public String getId() {
            return id;
        }

        /**
         * Sets the id.
         *
         * @param id the id
         */
        public void setId(String id) {
            this.id = id;
        }

        /**
         * The amount.
         *
         * @return the amount
         */
        public long getAmountCents() {
            return amountCents;
        }

        /**
         * Sets the amount.
         *
         * @param amountCents the amount
         */
        public void setAmountCents(long amountCents) {
            this.amountCents = amountCents;
        }
    }

    /** The service: each method changes the request it was given. */
    public static class Orders {
        final AtomicInteger runs = new AtomicInteger();

        /**
         * Places an order, changing it.
         *
         * @param order the order
         * @return what ran
         */
        @Idempotent(operation = "place", key = "#order.id")
        public String place(Order order) {
            order.setId(order.getId() + "-renumbered");
            order.setAmountCents(1);
            return "placed run " + runs.incrementAndGet();
        }

        /**
         * Places an order given as a Map, changing it.
         *
         * @param order the order
         * @return what ran
         */
        @Idempotent(operation = "place-map", key = "#order['id']")
        public String placeMap(Map<String, Object> order) {
            order.put("id", order.get("id") + "-renumbered");
            order.put("coupon", "FREE");
            return "placed run " + runs.incrementAndGet();
        }
    }

    private Orders proxy(Orders target) {
        StaticListableBeanFactory beans = new StaticListableBeanFactory();
        beans.addBean("engine", engine);
        beans.addBean("principals", (PrincipalResolver) r -> Optional.of("alice"));
        IdempotentInterceptor interceptor = new IdempotentInterceptor(beans.getBeanProvider(IdempotencyEngine.class),
                beans.getBeanProvider(TransactionalExecutor.class), beans.getBeanProvider(PrincipalResolver.class),
                beans.getBeanProvider(CallObserver.class), null, IdempotentInterceptor.CallerSource.THREAD,
                new DefaultParameterNameDiscoverer());
        ProxyFactory factory = new ProxyFactory(target);
        factory.addAdvice(interceptor);
        return (Orders) factory.getProxy();
    }

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void aMethodThatChangesItsRequestCompletesItsOwnRecordAndItsRetryReplays() {
        Orders target = new Orders();
        Orders orders = proxy(target);

        String first = orders.place(new Order("o-1", 1250));
        String retry = orders.place(new Order("o-1", 1250));
        Map<String, Object> map = new HashMap<>(Map.of("id", "o-2", "amountCents", 1250));
        String firstMap = orders.placeMap(map);
        String retryMap = orders.placeMap(new HashMap<>(Map.of("id", "o-2", "amountCents", 1250)));

        assertThat(first).isEqualTo("placed run 1");
        assertThat(retry).as("the retry of the request as sent").isEqualTo(first);
        assertThat(firstMap).isEqualTo("placed run 2");
        assertThat(retryMap).isEqualTo(firstMap);
        assertThat(target.runs).hasValue(2);
        assertThat(store.find(IdempotencyKey.of("alice", "place", "o-1")).orElseThrow().state())
                .isEqualTo(RecordState.COMPLETED);
        assertThat(store.find(IdempotencyKey.of("alice", "place", "o-1-renumbered"))).isEmpty();
        assertThat(store.find(IdempotencyKey.of("alice", "place-map", "o-2")).orElseThrow().state())
                .isEqualTo(RecordState.COMPLETED);
        assertThat(store.find(IdempotencyKey.of("alice", "place-map", "o-2-renumbered"))).isEmpty();
    }
}
