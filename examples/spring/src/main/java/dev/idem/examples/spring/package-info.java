/**
 * A Spring Boot payments service on idem-spring-boot-starter: {@code POST /charges} is
 * covered by the Idempotency-Key servlet filter, and {@link dev.idem.examples.spring.ChargeService}
 * writes each charge with {@link dev.idem.spring.Idempotent @Idempotent} in the JDBC
 * transactional mode, so the charge row and the idempotency record commit together.
 */
package dev.idem.examples.spring;
