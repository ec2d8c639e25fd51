package dev.idem.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a Spring bean's method run at most once per idempotency key, with the guarantees of
 * {@link dev.idem.engine.IdempotencyEngine#execute}: a retry with the same key and arguments
 * returns the stored result without calling the method; the same key with other arguments
 * throws {@link dev.idem.api.KeyReusedException}; a concurrent duplicate gets
 * {@link dev.idem.api.RequestInProgressException} (or waits, with {@code idem.in-progress-wait});
 * an exception releases the key and is rethrown as the method threw it.
 *
 * <pre>{@code
 * @Idempotent(operation = "create-charge", key = "#request.id")
 * public Charge charge(ChargeRequest request) { ... }
 * }</pre>
 *
 * Expressions are SpEL over the method's parameters by name ({@code #request}) or position
 * ({@code #p0}, {@code #a0}). The result is stored as JSON and decoded into the method's
 * generic return type on replay, so it must round-trip through Jackson. The method must be
 * called through the Spring proxy (not from within its own class).
 *
 * <p>Asynchronous methods keep the same guarantees through the engine's asynchronous call: for a
 * {@code CompletionStage} or {@code CompletableFuture} the value it completes with is stored and
 * replayed, an exceptional completion is classified like a thrown exception; a Reactor
 * {@code Mono} (with idem-reactor on the class path) is returned lazily, the method runs once per
 * claim when it is subscribed, with the subscriber's context, and its scope may come from Spring
 * Security's reactive context. Their method bodies run on the engine's async executor, so a
 * thread-bound transaction does not reach them ({@code transactional = true} is refused). Any other
 * asynchronous or reactive return type ({@code Flux}, {@code Future}, RxJava) is refused when the
 * method is first seen (at startup under the Boot starter): collect a finite {@code Flux} with
 * {@code collectList()}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Idempotent {
    /**
     * The operation name: the same key under two operations is two intents.
     *
     * @return the operation
     */
    String operation();

    /**
     * SpEL for the client's key, for example {@code #request.id} or {@code #idempotencyKey}.
     *
     * @return the expression
     */
    String key();

    /**
     * SpEL for the scope (tenant, caller). Empty: the authenticated Spring Security user, or
     * else {@code idem.aop.default-scope}.
     *
     * @return the expression, or empty
     */
    String scope() default "";

    /**
     * SpEL for what is fingerprinted. Empty: the only argument, or the list of all of them.
     * The value is written as JSON (a String as a JSON string, never parsed as JSON text).
     *
     * @return the expression, or empty
     */
    String request() default "";

    /**
     * Runs the method in the JDBC transactional mode ({@link SpringTransactionalIdempotency}):
     * its writes through the shared DataSource and the record's completion commit together.
     *
     * @return whether to run transactionally
     */
    boolean transactional() default false;
}
