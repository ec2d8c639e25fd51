package dev.idem.jaxrs;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks resource methods (or every method of a resource class) as idempotent routes: covered
 * requests to them need an {@code Idempotency-Key}, run at most once per key and replay the
 * first response. A Jakarta REST name-binding annotation, so a filter class annotated with it is
 * bound to these methods only; {@link JaxrsRoutes#annotated()} selects them for an unbound
 * {@link IdempotencyFilter}. Only the covered HTTP methods (POST and PATCH by default) are
 * affected; others on the same resource pass through.
 */
@NameBinding
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Idempotent {
    /**
     * The name of the configuration that covers these methods, where an integration offers
     * several ({@link JaxrsRoutes#annotated(String)}); empty for the default one.
     *
     * @return the configuration's name, or empty for the default
     */
    String value() default "";
}
