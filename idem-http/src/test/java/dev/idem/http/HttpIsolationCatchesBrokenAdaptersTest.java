package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.idem.api.KeyReusedException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.RecordState;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * {@link HttpIsolationContract} rejects the adapters it exists to catch: the JDK handler with the
 * contract's configuration and one bug each (the scope encoding this repository used before, in
 * which a name could spell another caller's scope; an adapter that frees or renews the holder's
 * record when it refuses a duplicate, as a peer's did). The adapter as it is passes every check.
 */
class HttpIsolationCatchesBrokenAdaptersTest {
    private interface Check {
        void run(HttpIsolationContract contract) throws Exception;
    }

    private static final List<Check> CHECKS = List.of(
            HttpIsolationContract::aNameSpelledLikeALongPrincipalsScopeGetsRecordsOfItsOwn,
            HttpIsolationContract::aNameSpelledLikeAnApiKeysScopeGetsRecordsOfItsOwn,
            HttpIsolationContract::recordsStoredUnderTheEarlierScopeSpellingsAreFoundAfterTheUpgrade,
            HttpIsolationContract::requestsTheAdapterRefusesLeaveTheStoredRecordByteForByteAsItWas);

    /** Runs {@code check} against the JDK handler with the contract's configuration, changed by {@code broken}. */
    private static void run(BiFunction<HttpIdempotency.Builder, IdempotencyEngine, HttpIdempotency.Builder> broken,
            Check check) throws Exception {
        SwitchableStore store = AbstractHttpContract.newStore();
        IdempotencyEngine engine = AbstractHttpContract.engine(store);
        TestHandler handler = new TestHandler();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        ExecutorService executor = Executors.newFixedThreadPool(8);
        server.setExecutor(executor);
        server.createContext("/api/", new IdempotentHttpHandler(
                broken.apply(AbstractHttpContract.configBuilder(engine), engine).build(),
                JdkHttpServerTest.app(handler))).setAuthenticator(JdkHttpServerTest.authenticator());
        server.start();
        Http http = new Http("http://127.0.0.1:" + server.getAddress().getPort());
        try {
            check.run(new HttpIsolationContract() {
                @Override
                Http http() {
                    return http;
                }

                @Override
                TestHandler handler() {
                    return handler;
                }

                @Override
                SwitchableStore store() {
                    return store;
                }

                @Override
                String principalName(String user) {
                    return user.contains(":") ? user : "test:" + user;
                }
            });
        } finally {
            server.stop(0);
            executor.shutdownNow();
            engine.close();
        }
    }

    @Test
    void theAdapterAsItIsPassesEveryCheck() {
        for (Check check : CHECKS) {
            assertThatCode(() -> run((b, e) -> b.principals(AbstractHttpContract.PRINCIPALS), check)).doesNotThrowAnyException();
        }
    }

    /**
     * The scope as {@code Processor.fit} wrote it before: the resolved name as it is when it fits,
     * else {@code sha256:} and its digest; the API-key header's {@code api-key:<digest>} as a name.
     */
    private static HttpIdempotency.Builder earlierScopes(HttpIdempotency.Builder b, IdempotencyEngine e) {
        PrincipalResolver standard = AbstractHttpContract.PRINCIPALS;
        return b.principals(new PrincipalResolver() {
            @Override
            public Optional<String> resolve(IncomingRequest request) {
                return standard.resolve(request);
            }

            @Override
            public Optional<String> scope(IncomingRequest request) {
                return standard.resolve(request).map(HttpIsolationContract::earlierScope);
            }
        });
    }

    @Test
    void theEarlierScopeEncodingIsCaught() {
        assertThatThrownBy(() -> run(HttpIsolationCatchesBrokenAdaptersTest::earlierScopes,
                HttpIsolationContract::aNameSpelledLikeALongPrincipalsScopeGetsRecordsOfItsOwn))
                .isInstanceOf(AssertionError.class).hasMessageContaining("201 replayed");
        assertThatThrownBy(() -> run(HttpIsolationCatchesBrokenAdaptersTest::earlierScopes,
                HttpIsolationContract::aNameSpelledLikeAnApiKeysScopeGetsRecordsOfItsOwn))
                .isInstanceOf(AssertionError.class).hasMessageContaining("201 replayed");
        assertThatThrownBy(() -> run(HttpIsolationCatchesBrokenAdaptersTest::earlierScopes,
                HttpIsolationContract::recordsStoredUnderTheEarlierScopeSpellingsAreFoundAfterTheUpgrade))
                .isInstanceOf(AssertionError.class).hasMessageContaining("422");
    }

    /** An execution that, when it refuses a duplicate, does {@code onRefusal} to the holder's record. */
    private interface OnRefusal {
        void apply(IdempotencyEngine engine, HandlerExecution.Call call, dev.idem.api.store.StoredRecord holder);
    }

    private static BiFunction<HttpIdempotency.Builder, IdempotencyEngine, HttpIdempotency.Builder> refusing(
            OnRefusal onRefusal) {
        return (b, engine) -> b.principals(AbstractHttpContract.PRINCIPALS).execution(new HandlerExecution() {
            private final HandlerExecution real = HandlerExecution.engine(engine);

            @Override
            public <T> Result<T> execute(Call call, Class<T> type, Work<? extends T> work) {
                try {
                    return real.execute(call, type, work);
                } catch (RequestInProgressException | KeyReusedException e) {
                    engine.store().find(call.key()).filter(r -> r.state() == RecordState.IN_PROGRESS)
                            .ifPresent(r -> onRefusal.apply(engine, call, r));
                    throw e;
                }
            }
        });
    }

    @Test
    void anAdapterThatFreesTheHoldersRecordOnARefusedDuplicateIsCaught() {
        assertThatThrownBy(() -> run(refusing((engine, call, r) -> engine.store().release(call.key(),
                r.fencingToken())), HttpIsolationContract::requestsTheAdapterRefusesLeaveTheStoredRecordByteForByteAsItWas))
                .isInstanceOf(AssertionError.class).hasMessageContaining("the record after");
    }

    @Test
    void anAdapterThatRenewsTheHoldersLeaseOnARefusedDuplicateIsCaught() {
        assertThatThrownBy(() -> run(refusing((engine, call, r) -> engine.store().extendLease(call.key(),
                r.fencingToken(), java.time.Duration.ofMinutes(5))),
                HttpIsolationContract::requestsTheAdapterRefusesLeaveTheStoredRecordByteForByteAsItWas))
                .isInstanceOf(AssertionError.class).hasMessageContaining("the record after");
    }
}
