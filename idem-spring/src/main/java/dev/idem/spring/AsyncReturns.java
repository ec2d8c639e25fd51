package dev.idem.spring;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.WorkFailedException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;

/**
 * How {@link IdempotentInterceptor} runs a method by its return type: a plain value through the
 * blocking call, a {@code CompletionStage} or {@code CompletableFuture} through the engine's
 * asynchronous call, a Reactor {@code Mono} through idem-reactor; every other asynchronous or
 * reactive type is refused when the method is first seen (at startup, under the Boot starter),
 * because its value would be stored as the wrapper, not as the outcome.
 */
final class AsyncReturns {
    private static final String MONO = "reactor.core.publisher.Mono";

    /** The kinds of return the interceptor handles. */
    enum Kind {
        VALUE, STAGE, MONO
    }

    private AsyncReturns() {
    }

    static Kind kind(Method method) {
        Class<?> raw = method.getReturnType();
        if (raw == CompletionStage.class || raw == CompletableFuture.class) {
            return Kind.STAGE;
        }
        return raw.getName().equals(MONO) ? Kind.MONO : Kind.VALUE;
    }

    /**
     * Refuses a return type whose outcome cannot be stored, and the blocking transactional mode
     * on an asynchronous one.
     *
     * @throws IdemConfigurationException saying what is wrong and what to return instead
     */
    static void check(Method method, Idempotent idempotent) {
        Kind kind = kind(method);
        String where = "@Idempotent on " + method.getDeclaringClass().getName() + "." + method.getName();
        Class<?> raw = method.getReturnType();
        if (kind == Kind.VALUE && (Future.class.isAssignableFrom(raw) || CompletionStage.class.isAssignableFrom(raw)
                || ReactiveAdapterRegistry.getSharedInstance().getAdapter(raw) != null)) {
            throw new IdemConfigurationException(where, where + " returns " + raw.getName() + ", which idem cannot "
                    + "run once: it would store the wrapper, not the outcome.", "Return a value, a CompletionStage, "
                    + "a CompletableFuture or a Reactor Mono (collect a finite Flux with collectList()), or remove "
                    + "@Idempotent from the method.");
        }
        if (kind != Kind.VALUE && idempotent.transactional()) {
            throw new IdemConfigurationException(where, where + " returns " + raw.getSimpleName() + " with "
                    + "transactional = true: the transactional mode runs blocking methods only (their transaction "
                    + "is bound to the calling thread).", "Remove transactional = true, or make the method "
                    + "blocking (return the value itself).");
        }
    }

    /**
     * The type a replay decodes to: the value type inside the stage or Mono, whose first type
     * argument it is ({@code Object} if the method leaves it open).
     */
    static TypeReference<Object> valueType(Method method) {
        Type type = ResolvableType.forMethodReturnType(method).getGeneric(0).getType();
        Type resolved = type instanceof Class<?> || type instanceof java.lang.reflect.ParameterizedType
                || type instanceof java.lang.reflect.GenericArrayType ? type : Object.class;
        return new TypeReference<>() {
            @Override
            public Type getType() {
                return resolved;
            }
        };
    }

    /**
     * Runs the method once more past this interceptor: a clone of the invocation, so a second
     * claim (after a released failure) runs the interceptors inside this one again.
     */
    static Object proceed(MethodInvocation invocation) throws Throwable {
        return invocation instanceof ProxyMethodInvocation p ? p.invocableClone().proceed() : invocation.proceed();
    }

    /** The asynchronous call for a {@code CompletionStage} method; fails as the method would. */
    static CompletableFuture<Object> stage(IdempotencyEngine engine, IdempotencyKey key, Object request,
            Method method, MethodInvocation invocation) {
        CompletableFuture<Result<Object>> result = engine.executeAsync(key, request,
                valueType(method), CallOptions.defaults(), ctx -> {
                    Object stage;
                    try {
                        stage = proceed(invocation);
                    } catch (Exception | Error e) {
                        throw e;
                    } catch (Throwable t) {
                        throw new java.lang.reflect.UndeclaredThrowableException(t);
                    }
                    if (stage == null) {
                        throw new IllegalStateException(method + " returned null instead of a CompletionStage");
                    }
                    @SuppressWarnings("unchecked")
                    CompletionStage<Object> s = (CompletionStage<Object>) stage;
                    return s;
                });
        CompletableFuture<Object> answer = new CompletableFuture<>();
        result.whenComplete((r, e) -> {
            if (e == null) {
                answer.complete(r.value());
            } else {
                answer.completeExceptionally(unwrap(e));
            }
        });
        return answer;
    }

    /** What the method itself would have failed with: no CompletionException, no checked-exception wrapper. */
    static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof WorkFailedException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
