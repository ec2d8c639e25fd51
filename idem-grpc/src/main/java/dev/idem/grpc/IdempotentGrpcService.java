package dev.idem.grpc;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a gRPC service implementation ({@code BindableService}) whose unary methods run through
 * idem, for the Spring Boot starters: with Spring gRPC on the class path they install the server
 * interceptor of the application's {@link GrpcIdempotency} on the marked services' methods, and
 * check at startup, as {@link GrpcIdempotency#intercept(io.grpc.BindableService, String...)} does,
 * that every covered method exists and is unary. Without Spring, call {@code intercept} yourself.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface IdempotentGrpcService {
    /**
     * The bare names of the covered methods (for example {@code "Charge"}); empty for all of them,
     * in which case the service must have no streaming method.
     *
     * @return the covered methods, or empty for all
     */
    String[] methods() default {};
}
