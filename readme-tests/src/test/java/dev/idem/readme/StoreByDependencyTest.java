package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.StoreProvider;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.readme.QuickStartTest.Charge;
import dev.idem.readme.QuickStartTest.ChargeRequest;
import dev.idem.readme.QuickStartTest.PaymentGateway;
import dev.idem.store.memory.MemoryStoreProvider;
import dev.idem.store.redis.RedisStoreProvider;
import dev.idem.testsupport.redis.EmbeddedRedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.embedded.RedisServer;

/**
 * The engine README's "store found on the class path": one piece of code, run once with only
 * idem-store-memory visible and once with only idem-store-redis (a class loader that shows one
 * module's {@code META-INF/services} entry stands for the application's dependency). On memory
 * the record dies with the engine, so a second engine charges again; on Redis the second engine
 * replays the first charge.
 */
@Timeout(60)
class StoreByDependencyTest {
    private final PaymentGateway gateway = new PaymentGateway();
    private final IdempotencyKey key = IdempotencyKey.inScope("customer-42").operation("create-charge").key("k-1");
    private final ChargeRequest chargeRequest = new ChargeRequest("customer-42", 1_000);

    private Charge charge(String redisUri) {
        // tag::discovery[]
        // No .store(...): the engine uses the one store module on the class path, so going from
        // idem-store-memory (tests, one process) to idem-store-redis is a change of dependency.
        try (IdempotencyEngine engine = IdempotencyEngine.builder()
                .storeProperty("idem.store.redis.uri", redisUri)   // read by the Redis store only
                .build()) {
            return engine.call(key, chargeRequest, Charge.class,
                    ctx -> gateway.charge(chargeRequest, ctx.downstreamKey()));
        }   // the engine found the store, so close() closes it (and the Redis client it opened)
        // end::discovery[]
    }

    private Charge chargeWithOnly(Class<? extends StoreProvider> provider, String redisUri) {
        Thread t = Thread.currentThread();
        ClassLoader before = t.getContextClassLoader();
        t.setContextClassLoader(new OneProviderLoader(before, provider));
        try {
            return charge(redisUri);
        } finally {
            t.setContextClassLoader(before);
        }
    }

    @Test
    void theSameCodeRunsOnMemoryThenOnRedisChosenByTheClassPath() throws IOException {
        int port = EmbeddedRedisServer.freePort();
        RedisServer redis = EmbeddedRedisServer.start(port, false);
        try {
            String uri = "redis://" + EmbeddedRedisServer.HOST + ":" + port;
            chargeWithOnly(MemoryStoreProvider.class, uri);
            chargeWithOnly(MemoryStoreProvider.class, uri);
            assertThat(gateway.charges).as("memory: the record died with its engine").hasValue(2);

            Charge r1 = chargeWithOnly(RedisStoreProvider.class, uri);
            Charge r2 = chargeWithOnly(RedisStoreProvider.class, uri);
            assertThat(gateway.charges).as("redis: the second engine replayed").hasValue(3);
            assertThat(r2).isEqualTo(r1);
        } finally {
            redis.stop();
        }
    }

    /** Shows only the {@code StoreProvider} services entries that name {@code provider}. */
    private static final class OneProviderLoader extends ClassLoader {
        private static final String SERVICES = "META-INF/services/" + StoreProvider.class.getName();
        private final Class<? extends StoreProvider> provider;

        OneProviderLoader(ClassLoader parent, Class<? extends StoreProvider> provider) {
            super(parent);
            this.provider = provider;
        }

        @Override
        public Enumeration<URL> getResources(String name) throws IOException {
            Enumeration<URL> all = super.getResources(name);
            if (!name.equals(SERVICES)) {
                return all;
            }
            List<URL> kept = new ArrayList<>();
            for (URL url : Collections.list(all)) {
                try (InputStream in = url.openStream()) {
                    if (new String(in.readAllBytes(), StandardCharsets.UTF_8).contains(provider.getName())) {
                        kept.add(url);
                    }
                }
            }
            return Collections.enumeration(kept);
        }
    }
}
