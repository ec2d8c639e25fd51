package dev.idem.jaxrs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.http.BufferedResponse;
import dev.idem.jaxrs.RequestBodyReader;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The exchange's phases where no server can easily drive them: a filter that stops waiting. */
class JaxrsExchangeTest {
    private final Map<String, Object> properties = new HashMap<>();
    private final ContainerRequestContext request = (ContainerRequestContext) Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] {ContainerRequestContext.class}, (proxy, method, args) -> {
                switch (method.getName()) {
                    case "setProperty": properties.put((String) args[0], args[1]); return null;
                    case "getProperty": return properties.get((String) args[0]);
                    case "setEntityStream": return null;
                    default: throw new UnsupportedOperationException(method.getName());
                }
            });
    private final CompletableFuture<Optional<Response>> outcome = new CompletableFuture<>();

    private JaxrsExchange exchange() {
        return new JaxrsExchange(this, request, null, RequestBodyReader.blocking(), outcome, () -> { });
    }

    @Test
    void aHandlerTheFilterGaveUpOnNeverStartsAndItsKeyIsReleased() {
        JaxrsExchange exchange = exchange();
        exchange.abandon();

        CompletableFuture<BufferedResponse> handler = exchange.proceed(new byte[0], null, 10).toCompletableFuture();

        assertThat(handler).isCompletedExceptionally();
        assertThat(cause(handler)).as("a plain failure: the engine releases the key at once")
                .isInstanceOf(IllegalStateException.class);
        assertThat(outcome).isNotDone();
    }

    @Test
    void aRunningHandlerTheFilterGaveUpOnIsACancellationThatKeepsTheClaim() {
        JaxrsExchange exchange = exchange();
        CompletableFuture<BufferedResponse> handler = exchange.proceed(new byte[0], null, 10).toCompletableFuture();
        assertThat(outcome).isCompletedWithValue(Optional.empty());
        assertThat(exchange.running()).isTrue();

        exchange.abandon();

        assertThat(cause(handler)).isInstanceOf(CancellationException.class);
        assertThat(exchange.running()).isFalse();
        assertThat(JaxrsExchange.taken(request)).isTrue();
    }

    @Test
    void aConfigurationThatDoesNotCoverTheRequestLeavesItToTheNext() {
        JaxrsExchange exchange = exchange();
        exchange.passThrough();

        assertThat(JaxrsExchange.taken(request)).isFalse();
        assertThat(exchange.handlerThrew(new IllegalStateException())).isFalse();
        assertThat(List.copyOf(properties.keySet())).containsExactly(JaxrsExchange.PROPERTY);
    }

    private static Throwable cause(CompletableFuture<?> f) {
        try {
            f.get();
            throw new AssertionError("completed normally");
        } catch (CancellationException e) {
            return e;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
