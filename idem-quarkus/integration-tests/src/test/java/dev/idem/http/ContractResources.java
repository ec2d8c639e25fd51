package dev.idem.http;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.jboss.resteasy.reactive.server.core.CurrentRequestManager;

/** What both resource variants do: hand the request to {@link TestHandler} and turn its reply into a response. */
final class ContractResources {
    private ContractResources() {
    }

    /** One call of the application, read off the request on the request's own thread. */
    record Call(String method, String route, String key, byte[] body, Object context) {
        Response run() {
            QuarkusContractApp.HANDLER_THREADS.add(Thread.currentThread().getName());
            TestHandler.Reply reply;
            try {
                reply = QuarkusContractApp.HANDLER.handle(method, route, key, body, context);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            Response.ResponseBuilder b = Response.status(reply.status());
            if (reply.contentType() != null) {
                b.type(reply.contentType());
            }
            reply.headers().forEach(b::header);
            if (reply.body().length > 0 && !method.equals("HEAD")) {
                b.entity(reply.body());
            }
            return b.build();
        }
    }

    /** Latches a test registers by Idempotency-Key, counted down when that request's connection closes. */
    static final Map<String, CountDownLatch> CLOSED = new ConcurrentHashMap<>();

    /** Tells the test, through {@link #CLOSED}, when the server has seen this request's client go. */
    static void watchClose(ContainerRequestContext request) {
        String key = request.getHeaderString("Idempotency-Key");
        CountDownLatch closed = key == null ? null : CLOSED.get(key);
        if (closed != null) {
            CurrentRequestManager.get().serverResponse().addCloseHandler(closed::countDown);
        }
    }

    static Call call(ContainerRequestContext request, String prefix, String name, byte[] body) {
        watchClose(request);
        return new Call(request.getMethod(), prefix + "/" + name, String.valueOf(request.getHeaderString("Idempotency-Key")),
                body == null ? new byte[0] : body, request.getProperty(HttpIdempotency.CONTEXT_ATTRIBUTE));
    }
}
