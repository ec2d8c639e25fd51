/**
 * What differs on Spring Boot 3: the actuator health indicator, on that generation's health API.
 * Everything else comes from idem-spring-boot-autoconfigure ({@code dev.idem.spring.boot}).
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
package dev.idem.spring.boot3;
