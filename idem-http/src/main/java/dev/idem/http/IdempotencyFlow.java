package dev.idem.http;

import dev.idem.engine.ExecutionContext;
import dev.idem.http.internal.AsyncProcessor;
import dev.idem.http.internal.StoredResponse;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionStage;

/**
 * The one request flow of the Idempotency-Key contract, for adapters of servers this module
 * does not ship one for (idem-jaxrs builds its Jakarta REST filters on it). It is the flow of
 * {@link IdempotencyServletFilter} and {@link IdempotentHttpHandler}: the same covered methods and
 * routes, key parsing, scoping, fingerprint, status table, problem types, stored and replayed
 * responses; whatever that flow gains, every adapter on this class gains with it.
 *
 * <p>An adapter implements {@link Exchange} over its server's request and response and calls
 * {@link #handle} once per request. The flow decides, in order: pass the request through
 * untouched ({@link Exchange#passThrough}); or answer it without running the handler
 * ({@link Exchange#send} with a problem or a replay); or run the handler once through the
 * configuration's {@link HandlerExecution} ({@link Exchange#proceed}, whose captured response is
 * stored or not by the {@link ResponseStoragePolicy}) and then {@link Exchange#send} what the
 * client gets. Exactly one of {@code passThrough} and {@code send} is called per request, and
 * {@code proceed} at most once, before that {@code send}. Every step is a stage, so neither the
 * handler nor the store blocks the caller's thread; a blocking server returns completed stages.
 * The handler's own response reaches {@code send} as the instance {@code proceed} completed with.
 * Thread-safe; build one per {@link HttpIdempotency} and share it.
 */
public final class IdempotencyFlow {
    private final AsyncProcessor processor;

    private IdempotencyFlow(HttpIdempotency config) {
        this.processor = new AsyncProcessor(config);
    }

    /**
     * The flow of {@code config}.
     *
     * @param config the contract's configuration
     * @return the flow
     */
    public static IdempotencyFlow of(HttpIdempotency config) {
        return new IdempotencyFlow(Objects.requireNonNull(config, "config"));
    }

    /**
     * Handles one request. On a covered request an exception from the handler (a
     * {@link Exchange#proceed} stage that completes exceptionally) becomes a problem response
     * sent through {@link Exchange#send}: 500 {@code handler-failed} with the key released, or
     * the engine's final failure (422 {@code replayed-failure}) when its classifier says so.
     *
     * @param exchange the request and how to answer it
     * @return a stage that completes once the request was passed through or its answer sent;
     *     exceptionally only if the exchange itself failed (reading the body, sending)
     */
    public CompletionStage<Void> handle(Exchange exchange) {
        Objects.requireNonNull(exchange, "exchange");
        return processor.handle(new Adapter(exchange));
    }

    /** What a server adapter provides to {@link IdempotencyFlow#handle}, one instance per request. */
    public interface Exchange {
        /**
         * The request line, headers and principal.
         *
         * @return the request
         */
        IncomingRequest request();

        /**
         * Reads the request body, at most {@code limit + 1} bytes, so that an oversize body is seen
         * (it is answered 413 and never reaches the handler).
         *
         * @param limit the largest body accepted
         * @return a stage with the bytes read
         */
        CompletionStage<byte[]> readBody(int limit);

        /**
         * Hands the untouched request to the application: the request is not covered.
         *
         * @return a stage that completes when the application has answered (or at once, for a
         *     server that lets the request go on after the adapter returns)
         */
        CompletionStage<Void> passThrough();

        /**
         * Runs the handler on the buffered {@code body}, with {@code context} where the handler
         * can find it (the attribute {@link HttpIdempotency#CONTEXT_ATTRIBUTE}), and completes with
         * its response, captured and not sent. Keep at most {@code maxResponseBytes} of its body
         * ({@link BufferedResponse#bodyBuffer}); a larger response must come back larger than the
         * store's limit, not cut to fit. Complete exceptionally with what the handler threw, or
         * with {@link ResponseDropped} if the handler ran but its response is gone (the client left).
         *
         * @param body the request body as read
         * @param context the running execution
         * @param maxResponseBytes the most response body bytes kept
         * @return a stage with the handler's response
         */
        CompletionStage<BufferedResponse> proceed(byte[] body, ExecutionContext context, int maxResponseBytes);

        /**
         * Sends {@code response} with {@code extraHeaders} added (replacing any of the same name):
         * the handler's own response, a replay or a problem. {@code Content-Length} is the body's
         * length.
         *
         * @param response what the client gets
         * @param extraHeaders headers to add, such as {@code Idempotency-Status}
         * @return a stage that completes once it is sent
         */
        CompletionStage<Void> send(BufferedResponse response, Map<String, String> extraHeaders);
    }

    /**
     * What an adapter completes {@link Exchange#proceed}'s stage with when the handler ran (or
     * runs) but its response is gone before it was captured: the client left, and the server
     * dropped the response or cancelled the handler. The flow's decision, the same for every
     * adapter: the key is abandoned, neither released nor given an outcome, so it stays claimed
     * until its lease lapses, as for a worker that died (the effect may have happened, so a retry
     * must not run it at once; there is no outcome to store), and nothing is sent. A handler's own
     * exception instead releases the key (or stores a final failure), and a response that was
     * captured is stored even if sending it fails afterwards.
     */
    public static final class ResponseDropped extends CancellationException {
        private static final long serialVersionUID = 1L;

        /**
         * A dropped response.
         *
         * @param why what the server saw, for the log
         */
        public ResponseDropped(String why) {
            super(why);
        }
    }

    /**
     * The public exchange seen as the shared flow's own. The handler's own response is handed back
     * to {@link Exchange#send} as the very instance {@link Exchange#proceed} gave, so an adapter can
     * tell it from a replay or a problem by identity (and add what is never stored, such as cookies).
     */
    private static final class Adapter implements AsyncProcessor.Exchange {
        private final Exchange exchange;
        private volatile BufferedResponse proceeded;

        Adapter(Exchange exchange) {
            this.exchange = exchange;
        }

        @Override
        public IncomingRequest request() {
            return exchange.request();
        }

        @Override
        public CompletionStage<byte[]> readBody(int limit) {
            return exchange.readBody(limit);
        }

        @Override
        public CompletionStage<Void> passThrough() {
            return exchange.passThrough();
        }

        @Override
        public CompletionStage<StoredResponse> proceed(byte[] body, ExecutionContext context, int maxResponseBytes) {
            return exchange.proceed(body, context, maxResponseBytes).thenApply(response -> {
                proceeded = response;
                return response.stored();
            });
        }

        @Override
        public CompletionStage<Void> send(StoredResponse response, Map<String, String> extraHeaders) {
            BufferedResponse own = proceeded;
            return exchange.send(own != null && own.stored() == response ? own : new BufferedResponse(response),
                    extraHeaders);
        }
    }
}
