package dev.idem.http.internal;

import dev.idem.engine.ExecutionContext;
import dev.idem.engine.Result;
import dev.idem.http.HandlerExecution;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.IncomingRequest;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The request flow of {@link Processor} for reactive servers: the same decisions and answers
 * (the same admission, fingerprint, problems, stored and replayed responses), with a body that
 * is read, a handler that runs and a response that is sent asynchronously, and the handler run
 * through {@link HandlerExecution#executeAsync}. No thread blocks on the handler or on the store.
 * Not API.
 */
public final class AsyncProcessor {
    /** What a reactive server adapter provides. */
    public interface Exchange {
        /** The request line, headers and principal. */
        IncomingRequest request();

        /** Reads the request body, at most {@code limit + 1} bytes (so an oversize body is seen). */
        CompletionStage<byte[]> readBody(int limit);

        /** Hands the untouched request to the rest of the chain. */
        CompletionStage<Void> passThrough();

        /**
         * Runs the rest of the chain on the buffered body and completes with its buffered
         * response, keeping at most {@code maxResponseBytes} of its body (as {@link Processor.Exchange#proceed}).
         */
        CompletionStage<StoredResponse> proceed(byte[] body, ExecutionContext context, int maxResponseBytes);

        /** Sends {@code response} with {@code extraHeaders} added. */
        CompletionStage<Void> send(StoredResponse response, Map<String, String> extraHeaders);
    }

    private final HttpIdempotency config;
    private final Processor processor;

    /** A processor for {@code config}. */
    public AsyncProcessor(HttpIdempotency config) {
        this.config = config;
        this.processor = new Processor(config);
    }

    /** Handles one exchange; completes when the response is sent (or the request passed through). */
    public CompletionStage<Void> handle(Exchange ex) {
        IncomingRequest request = ex.request();
        Processor.Admission admission = processor.admit(request);
        if (admission.passThrough()) {
            return ex.passThrough();
        }
        int limit = config.maxBodyBytes();
        if (admission.rejection() != null) {
            // Drained first, as the blocking flow does: answering over an unread body may drop the connection.
            return ex.readBody(limit).thenCompose(unread ->
                    ex.send(admission.rejection(), processor.rejectionHeaders(unread)));
        }
        return ex.readBody(limit).thenCompose(body -> {
            Processor.Prepared prepared = processor.prepare(request, admission, body);
            if (prepared.reply() != null) {
                return send(ex, prepared.reply());
            }
            return run(ex, prepared.call(), body);
        });
    }

    private CompletionStage<Void> run(Exchange ex, HandlerExecution.Call call, byte[] body) {
        AtomicReference<StoredResponse> sent = new AtomicReference<>();
        CompletableFuture<Result<Object>> result;
        try {
            result = config.execution().executeAsync(call, processor.storedType(), ctx ->
                    ex.proceed(body, ctx, processor.responseCap()).thenCompose(captured -> {
                        sent.set(captured);
                        try {
                            return CompletableFuture.completedFuture(processor.stored(call.key(), processor.toStore(captured)));
                        } catch (UnstoredResponse refused) {
                            return CompletableFuture.failedFuture(refused);
                        }
                    }));
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        return result.handle((r, e) -> {
            if (e != null && unwrap(e) instanceof CancellationException c) {
                // The client left (IdempotencyFlow.ResponseDropped, or the server cancelled the handler):
                // the engine keeps the key claimed until its lease lapses, and there is no one to answer.
                return CompletableFuture.<Void>failedFuture(c);
            }
            Processor.Reply reply = e == null ? processor.answered(call, r, sent.get()) : processor.failed(call, unwrap(e));
            return send(ex, reply);
        }).thenCompose(sending -> sending);
    }

    private static CompletionStage<Void> send(Exchange ex, Processor.Reply reply) {
        return ex.send(reply.response(), reply.extraHeaders());
    }

    private static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
