/**
 * The Spring Boot auto-configuration both starters share (Boot 3.5 and Boot 4): an
 * {@link dev.idem.engine.IdempotencyEngine} over whatever store the application already has, the
 * Idempotency-Key servlet filter after Spring Security, {@link dev.idem.spring.Idempotent}
 * methods, the JDBC transactional mode, observations, purge, and a failure analyzer. All settings
 * are {@code idem.*} properties ({@code IdemProperties}).
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
package dev.idem.spring.boot;
