package dev.idem.spring;

import dev.idem.api.CallerScope;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.http.PrincipalResolver;
import dev.idem.reactor.ReactorIdempotency;
import java.lang.reflect.Method;
import java.util.Optional;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Mono;

/**
 * The {@code Mono} branch of {@link IdempotentInterceptor}, loaded only for methods that return
 * one: a lazy {@code Mono} over idem-reactor (the method runs once per claim, when subscribed,
 * with the subscriber's context), scoped by the caller known at subscription: the scope
 * expression, else the thread's caller (a servlet request, Spring Security's thread context),
 * else Spring Security's reactive user, else the filter's rule on the WebFlux request in the
 * subscriber's context (the principal header; {@link ExchangeCaller}), else the default scope, else
 * {@link MissingScopeException}.
 */
final class MonoReturns {
    private static final boolean SECURITY = ClassUtils.isPresent(
            "org.springframework.security.core.context.ReactiveSecurityContextHolder", MonoReturns.class.getClassLoader());

    private static final boolean EXCHANGE = ClassUtils.isPresent(
            "org.springframework.web.filter.reactive.ServerWebExchangeContextFilter", MonoReturns.class.getClassLoader());

    private MonoReturns() {
    }

    /** A call refused before anything runs, as a {@code Mono} that fails when subscribed. */
    static Mono<Object> refused(RuntimeException e) {
        return Mono.error(e);
    }

    /** {@code known}: the caller's scope when the call already knows it, in {@link CallerScope}'s encoding. */
    static Mono<Object> invoke(IdempotencyEngine engine, Method method, Optional<String> known,
            PrincipalResolver principals, String defaultScope, String operation, String key, Object request,
            MethodInvocation invocation) {
        if (!ClassUtils.isPresent("dev.idem.reactor.ReactorIdempotency", MonoReturns.class.getClassLoader())) {
            throw new IllegalStateException("@Idempotent on " + method + " returns a Mono, which needs idem-reactor "
                    + "on the class path");
        }
        ReactorIdempotency reactor = ReactorIdempotency.of(engine);
        // Every scope in CallerScope's encoding: known ones come encoded, names are encoded here, and the
        // principal header's scope is the resolver's own.
        Mono<String> caller = known.map(Mono::just).orElseGet(() -> (SECURITY
                ? ReactiveSecurityUser.name().map(CallerScope::of) : Mono.<String>empty())
                .switchIfEmpty(EXCHANGE && principals != null ? ExchangeCaller.of(principals) : Mono.empty()));
        return caller.switchIfEmpty(defaultScope != null ? Mono.just(CallerScope.of(defaultScope))
                        : Mono.error(() -> IdempotentInterceptor.missingScope(method)))
                .flatMap(s -> reactor.call(IdempotencyKey.of(s, operation, key), request,
                        AsyncReturns.valueType(method), ctx -> {
                            Object mono;
                            try {
                                mono = AsyncReturns.proceed(invocation);
                            } catch (RuntimeException | Error e) {
                                throw e;
                            } catch (Throwable t) {
                                return Mono.error(t);
                            }
                            if (mono == null) {
                                return Mono.error(new IllegalStateException(method + " returned null instead of a Mono"));
                            }
                            return (Mono<?>) mono;
                        }))
                .onErrorMap(e -> AsyncReturns.unwrap(e) != e, AsyncReturns::unwrap);
    }
}
