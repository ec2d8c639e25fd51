/**
 * idem for Spring Framework applications (6.2 and 7.0): {@link dev.idem.spring.Idempotent}
 * methods through {@link dev.idem.spring.IdempotentInterceptor}, the one scoping rule of the
 * filter and the annotation ({@link dev.idem.spring.SpringPrincipals}), Spring path patterns and
 * Spring MVC's matched pattern as the filter's routes ({@link dev.idem.spring.SpringRoutes}), the
 * JDBC transactional mode inside Spring-managed transactions
 * ({@link dev.idem.spring.SpringTransactionalIdempotency}), for {@code @Idempotent} methods and
 * for the filter's routes ({@link dev.idem.spring.SpringHandlerExecution}), and
 * {@link org.springframework.http.ProblemDetail} answers for idem's exceptions
 * ({@link dev.idem.spring.IdempotencyExceptionHandler}). No Spring Boot types: the Boot starters
 * wire these up.
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
package dev.idem.spring;
