package dev.idem.quarkus.runtime;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Binds {@link RequestTransactionInterceptor}: the extension adds it to every {@code @Idempotent}
 * resource class and method when the application has Narayana and idem-store-jdbc. Wired by the
 * extension; not for applications.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface RequestTransaction {
}
