/**
 * Spring Boot 3 auto-configuration for idem: an {@link dev.idem.engine.IdempotencyEngine} over
 * whatever store the application already has, the servlet filter after Spring Security,
 * {@link dev.idem.spring.Idempotent} service methods, the JDBC transactional mode inside
 * Spring-managed transactions ({@link dev.idem.spring.SpringTransactionalIdempotency}),
 * metrics, tracing, purge and a health indicator. All settings are {@code idem.*}
 * properties ({@link dev.idem.spring.IdemProperties}).
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
package dev.idem.spring;
