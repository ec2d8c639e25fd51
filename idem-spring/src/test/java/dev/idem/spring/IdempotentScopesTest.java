package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.CallerScope;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.IncomingRequest;
import dev.idem.http.PrincipalResolver;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import reactor.core.publisher.Mono;

/**
 * {@link Idempotent} methods scope their records as the filter does, in one encoding: a caller
 * whose name spells another caller's scope ({@code sha256:} and a long name's digest,
 * {@code api-key:} and an API key's) runs its own work, on every way a method learns its caller
 * (the thread's caller, a scope expression, the reactive user of a {@code Mono}); and a record
 * stored under the spellings used before that encoding is still found.
 */
class IdempotentScopesTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** A 210-character X.509 subject: longer than a scope may be. */
    static final String LONG_DN = "CN=Alice Example Longname,OU=Payments Platform Engineering,OU=Settlement"
            + " Services,O=Example Corporation Holding International,L=Frankfurt am Main,ST=Hessen,C=DE,"
            + "emailAddress=alice.example@example.com,serialNumber=0042";

    private final IdempotencyStore store = MemoryIdempotencyStore.create();
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();

    /** The service: every run counted, so a replay shows. */
    public static class Ledger {
        final AtomicInteger runs = new AtomicInteger();

        /**
         * Scoped by the caller.
         *
         * @param id the payment id
         * @return the payment and the run that made it
         */
        @Idempotent(operation = "pay", key = "#p0")
        public String pay(String id) {
            return "paid " + id + " " + runs.incrementAndGet();
        }

        /**
         * Scoped by the tenant it is given.
         *
         * @param tenant the tenant
         * @param id the payment id
         * @return the payment and the run that made it
         */
        @Idempotent(operation = "pay-for", key = "#p1", scope = "#p0", request = "#p1")
        public String payFor(String tenant, String id) {
            return "paid " + id + " " + runs.incrementAndGet();
        }

        /**
         * Scoped at subscription.
         *
         * @param id the payment id
         * @return the payment and the run that made it
         */
        @Idempotent(operation = "pay-mono", key = "#p0")
        public Mono<String> payMono(String id) {
            return Mono.fromSupplier(() -> "paid " + id + " " + runs.incrementAndGet());
        }
    }

    static String sha256(String text) {
        try {
            return Base64.getUrlEncoder().withoutPadding().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** As {@link PrincipalResolver#apiKeyHeader} scopes a caller who sent {@code apiKey}. */
    private static PrincipalResolver apiKey(String apiKey) {
        return new PrincipalResolver() {
            @Override
            public Optional<String> resolve(IncomingRequest request) {
                return Optional.of(CallerScope.ofApiKey(apiKey));
            }

            @Override
            public Optional<String> scope(IncomingRequest request) {
                return resolve(request);
            }
        };
    }

    private Ledger proxy(Ledger target, PrincipalResolver principals, IdempotentInterceptor.CallerSource callers) {
        StaticListableBeanFactory beans = new StaticListableBeanFactory();
        beans.addBean("engine", engine);
        beans.addBean("principals", principals);
        IdempotentInterceptor interceptor = new IdempotentInterceptor(beans.getBeanProvider(IdempotencyEngine.class),
                beans.getBeanProvider(TransactionalExecutor.class), beans.getBeanProvider(PrincipalResolver.class),
                beans.getBeanProvider(CallObserver.class), null, callers, new DefaultParameterNameDiscoverer());
        ProxyFactory factory = new ProxyFactory(target);
        factory.addAdvice(interceptor);
        return (Ledger) factory.getProxy();
    }

    private Ledger as(Ledger target, String name) {
        return proxy(target, r -> Optional.of(name), IdempotentInterceptor.CallerSource.THREAD);
    }

    private static String asUser(Mono<String> mono, String user) {
        return mono.contextWrite(ReactiveSecurityContextHolder.withAuthentication(
                new TestingAuthenticationToken(user, "n/a", "ROLE_USER"))).block(WAIT);
    }

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void aThreadCallerSpelledLikeAnotherCallersScopeRunsItsOwnWork() {
        Ledger target = new Ledger();
        String longVictim = as(target, LONG_DN).pay("p-1");
        String longAttacker = as(target, "sha256:" + sha256(LONG_DN)).pay("p-1");
        String keyVictim = proxy(target, apiKey("sk_live_victim"), IdempotentInterceptor.CallerSource.THREAD)
                .pay("p-2");
        String keyAttacker = as(target, CallerScope.ofApiKey("sk_live_victim")).pay("p-2");

        assertThat(List.of(longVictim, longAttacker, keyVictim, keyAttacker))
                .containsExactly("paid p-1 1", "paid p-1 2", "paid p-2 3", "paid p-2 4");
    }

    @Test
    void aScopeExpressionSpelledLikeAnotherScopeRunsItsOwnWork() {
        Ledger ledger = as(new Ledger(), "whoever");
        String victim = ledger.payFor(LONG_DN, "p-1");
        String attacker = ledger.payFor("sha256:" + sha256(LONG_DN), "p-1");
        String squatter = ledger.payFor(CallerScope.ofApiKey("k"), "p-2");

        assertThat(List.of(victim, attacker, squatter)).containsExactly("paid p-1 1", "paid p-1 2", "paid p-2 3");
        assertThat(store.find(IdempotencyKey.of(CallerScope.ofApiKey("k"), "pay-for", "p-2"))).isEmpty();
    }

    @Test
    void aMonosReactiveUserSpelledLikeAnotherCallersScopeRunsItsOwnWork() {
        Ledger ledger = proxy(new Ledger(), r -> Optional.empty(), IdempotentInterceptor.CallerSource.REACTIVE);
        String victim = asUser(ledger.payMono("p-1"), LONG_DN);
        String attacker = asUser(ledger.payMono("p-1"), "sha256:" + sha256(LONG_DN));
        String again = asUser(ledger.payMono("p-1"), LONG_DN);

        assertThat(List.of(victim, attacker, again)).containsExactly("paid p-1 1", "paid p-1 2", "paid p-1 1");
    }

    /**
     * A record stored before the upgrade, under the scope then written ({@code sha256:} and the
     * digest for a long name, the name itself otherwise, {@code api-key:} and the digest for an API
     * key), answers a retry after it. Its fingerprint is what the engine takes of the retry (the
     * same operation and request under another scope), its outcome the one the test chose.
     */
    @Test
    void recordsStoredUnderTheEarlierScopeSpellingsAnswerRetriesAfterTheUpgrade() {
        Ledger target = new Ledger();
        String earlierLong = "sha256:" + sha256(LONG_DN);
        String earlierKey = "api-key:" + sha256("sk_live_victim");
        Ledger helper = as(target, "fingerprint-helper");

        seed(helper.pay("t-1"), earlierLong, "pay", "t-1");
        seed(helper.payFor("fingerprint-helper", "t-2"), earlierLong, "pay-for", "t-2");
        seed(helper.pay("t-3"), "alice", "pay", "t-3");
        seed(helper.pay("t-4"), earlierKey, "pay", "t-4");
        seed(asUser(proxy(target, r -> Optional.empty(), IdempotentInterceptor.CallerSource.REACTIVE).payMono("t-5"),
                "fingerprint-helper"), earlierLong, "pay-mono", "t-5");
        int runs = target.runs.get();

        assertThat(as(target, LONG_DN).pay("t-1")).isEqualTo("seeded t-1");
        assertThat(as(target, "whoever").payFor(LONG_DN, "t-2")).isEqualTo("seeded t-2");
        assertThat(as(target, "alice").pay("t-3")).isEqualTo("seeded t-3");
        assertThat(proxy(target, apiKey("sk_live_victim"), IdempotentInterceptor.CallerSource.THREAD).pay("t-4"))
                .isEqualTo("seeded t-4");
        assertThat(asUser(proxy(target, r -> Optional.empty(), IdempotentInterceptor.CallerSource.REACTIVE)
                .payMono("t-5"), LONG_DN)).isEqualTo("seeded t-5");
        assertThat(target.runs.get()).as("nothing ran again").isEqualTo(runs);
        // The spelling that used to reach the long name's records runs its own work.
        assertThat(as(target, earlierLong).pay("t-1")).isEqualTo("paid t-1 " + (runs + 1));
    }

    /** Stores, under {@code scope}, the record the helper's call left, with the outcome "seeded {key}". */
    private void seed(String helperAnswer, String scope, String operation, String key) {
        assertThat(helperAnswer).startsWith("paid " + key);
        StoredRecord helped = store.find(IdempotencyKey.of("fingerprint-helper", operation, key)).orElseThrow();
        IdempotencyKey earlier = IdempotencyKey.of(scope, operation, key);
        long token = 0x5EED_0000L + key.hashCode();
        store.claim(earlier, helped.fingerprint(), token, Duration.ofMinutes(5), Duration.ofHours(1));
        byte[] outcome = new String(helped.outcome(), StandardCharsets.UTF_8).replace(helperAnswer, "seeded " + key)
                .getBytes(StandardCharsets.UTF_8);
        assertThat(store.complete(earlier, token, outcome, Duration.ofHours(1))).isTrue();
    }
}
