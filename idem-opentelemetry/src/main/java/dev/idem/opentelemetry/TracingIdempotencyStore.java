package dev.idem.opentelemetry;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A store that runs each operation of another in a child span of the current span, named
 * {@code idem.store.<operation>} (client kind), with {@value #STORE_KIND} and the key's
 * {@value IdempotencyTracing#OPERATION}; a claim also records {@value #CLAIM_STATUS}. A
 * failing operation records its exception and an error status. Keys, scopes, fingerprints
 * and outcomes are never recorded. Obtain one with {@link IdempotencyTracing#wrap}.
 *
 * <p>The wrapped store's non-blocking form is traced too: such a span starts when the call is
 * made and ends when its stage completes. Closing it closes the wrapped store. Thread-safe when the wrapped store is.
 */
public final class TracingIdempotencyStore extends ForwardingIdempotencyStore {
    /** The instrumentation scope name of the store spans. */
    public static final String INSTRUMENTATION = "dev.idem.opentelemetry";
    /** Span attribute: the wrapped store's kind ({@code jdbc}, {@code redis}, ...). */
    public static final String STORE_KIND = "idem.store.kind";
    /** Span attribute on claims: {@code ACQUIRED}, {@code TAKEN_OVER} or {@code EXISTING}. */
    public static final String CLAIM_STATUS = "idem.claim.status";

    private static final AttributeKey<String> STORE_KIND_KEY = AttributeKey.stringKey(STORE_KIND);
    private static final AttributeKey<String> CLAIM_STATUS_KEY = AttributeKey.stringKey(CLAIM_STATUS);

    private final Tracer tracer;
    private final String kind;

    TracingIdempotencyStore(IdempotencyStore delegate, Tracer tracer, String kind) {
        super(delegate);
        this.tracer = tracer;
        this.kind = kind;
    }

    /** The kind read off a store's class name: {@code JdbcIdempotencyStore} is {@code jdbc}. */
    static String kindOf(IdempotencyStore store) {
        String name = store.getClass().getSimpleName();
        String kind = name.endsWith("IdempotencyStore") ? name.substring(0, name.length() - 16) : name;
        return kind.isEmpty() ? "custom" : kind.toLowerCase(java.util.Locale.ROOT);
    }

    private Span start(Operation operation, IdempotencyKey key) {
        Span span = tracer.spanBuilder("idem.store." + operation.label()).setSpanKind(SpanKind.CLIENT)
                .setAttribute(STORE_KIND_KEY, kind).startSpan();
        if (key != null) {
            span.setAttribute(IdempotencyTracing.OPERATION_KEY, key.operation());
        }
        return span;
    }

    private static void failed(Span span, Throwable e) {
        span.recordException(e);
        span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
    }

    @Override
    @SuppressWarnings("try") // the scope is held for its side effect: the span is current during the call
    protected <T> CompletionStage<T> aroundAsync(Operation operation, IdempotencyKey key,
            Supplier<? extends CompletionStage<T>> call) {
        Span span = start(operation, key);
        CompletionStage<T> stage;
        try (Scope ignored = span.makeCurrent()) {
            stage = call.get();
        } catch (RuntimeException | Error e) {
            failed(span, e);
            span.end();
            throw e;
        }
        // Ended when the store answers, on whichever thread completes the stage.
        return stage.whenComplete((result, failure) -> {
            if (failure != null) {
                failed(span, failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure);
            } else if (result instanceof ClaimResult) {
                span.setAttribute(CLAIM_STATUS_KEY, ((ClaimResult) result).status().name());
            }
            span.end();
        });
    }

    @Override
    @SuppressWarnings("try") // the scope is held for its side effect: the span is current during the call
    protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
        Span span = start(operation, key);
        try (Scope ignored = span.makeCurrent()) {
            T result = call.get();
            if (result instanceof ClaimResult) {
                span.setAttribute(CLAIM_STATUS_KEY, ((ClaimResult) result).status().name());
            }
            return result;
        } catch (RuntimeException | Error e) {
            failed(span, e);
            throw e;
        } finally {
            span.end();
        }
    }

    @Override
    public String toString() {
        return "Tracing(" + delegate() + ")";
    }
}
