/**
 * What differs on Spring Boot 4: the actuator health indicator on Boot 4's health API, and the
 * engine's JSON through the application's Jackson 3 {@code JsonMapper}.
 * Everything else comes from idem-spring-boot-autoconfigure ({@code dev.idem.spring.boot}).
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
package dev.idem.spring.boot4;
