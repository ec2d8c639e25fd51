package dev.idem.spring.boot;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.grpc.CallerResolver;
import dev.idem.grpc.GrpcIdempotency;
import dev.idem.grpc.IdempotentClientInterceptor;
import io.grpc.ManagedChannelBuilder;
import java.util.Optional;
import java.util.Set;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.grpc.client.GrpcChannelBuilderCustomizer;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.util.ClassUtils;

/**
 * idem-grpc with Spring gRPC ({@code org.springframework.grpc}, and Spring Boot 4.1's gRPC support
 * built on it): when both are on the class path, the server interceptor runs the unary methods of
 * the services annotated {@link dev.idem.grpc.IdempotentGrpcService} through the engine, and the
 * client interceptor keys each call on the channels named in {@code idem.grpc.client.channels}.
 *
 * <p>The server interceptor is one of Spring gRPC's global interceptors, ordered last, so it runs
 * inside the others (authentication first, so the caller is known); it covers the marked services'
 * methods only, and the application fails to start, naming the method, if a covered method does not
 * exist or streams. The caller ({@link CallerResolver}, unless the application defines one): the
 * authenticated, not anonymous, user of Spring Security's context, else the identity a trusted
 * gateway sends in {@code idem.grpc.server.caller-header}. An application {@link GrpcIdempotency}
 * bean replaces the whole server configuration.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnClass({GrpcIdempotency.class, io.grpc.BindableService.class})
@ConditionalOnBean(IdempotencyEngine.class)
@ConditionalOnProperty(prefix = "idem.grpc", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdemGrpcProperties.class)
public class IdemGrpcAutoConfiguration {
    private static final boolean SECURITY = ClassUtils.isPresent(
            "org.springframework.security.core.context.SecurityContextHolder",
            IdemGrpcAutoConfiguration.class.getClassLoader());

    /** Created by Spring. */
    public IdemGrpcAutoConfiguration() {
    }

    /**
     * Who calls: Spring Security's authenticated user, else {@code idem.grpc.server.caller-header}.
     *
     * @param properties the settings
     * @return the resolver
     */
    @Bean
    @ConditionalOnMissingBean
    public CallerResolver idemGrpcCallerResolver(IdemGrpcProperties properties) {
        CallerResolver security = (call, headers) -> SECURITY ? SecurityUser.current() : Optional.empty();
        String header = properties.server().callerHeader();
        return header == null || header.isBlank() ? security
                : security.orElse(CallerResolver.trustedHeader(header.strip()));
    }

    /**
     * The gRPC contract over the engine.
     *
     * @param engine the engine
     * @param callers the caller resolver
     * @return the contract
     */
    @Bean
    @ConditionalOnMissingBean
    public GrpcIdempotency grpcIdempotency(IdempotencyEngine engine, CallerResolver callers) {
        return GrpcIdempotency.builder(engine).callers(callers).build();
    }

    /**
     * The client interceptor, for channels the application builds itself too.
     *
     * @return the interceptor
     */
    @Bean
    @ConditionalOnMissingBean
    public IdempotentClientInterceptor idempotentClientInterceptor() {
        return IdempotentClientInterceptor.create();
    }

    /** The server side, with Spring gRPC's server support. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(GlobalServerInterceptor.class)
    static class Server {
        /**
         * The interceptor of the marked services' methods, a global one of Spring gRPC's.
         *
         * @param idempotency the contract
         * @param beans where the marked services are found
         * @return the interceptor
         */
        @Bean
        @GlobalServerInterceptor
        IdempotentGrpcServices idempotentGrpcServices(GrpcIdempotency idempotency, ListableBeanFactory beans) {
            return new IdempotentGrpcServices(idempotency, beans);
        }
    }

    /** The client side, with Spring gRPC's channel factory. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(GrpcChannelBuilderCustomizer.class)
    static class Client {
        /**
         * Adds the client interceptor to the channels named in {@code idem.grpc.client.channels}.
         *
         * @param <T> the builder type
         * @param properties the settings
         * @param interceptor the client interceptor
         * @return the customizer
         */
        @Bean
        <T extends ManagedChannelBuilder<T>> GrpcChannelBuilderCustomizer<T> idempotentGrpcChannels(
                IdemGrpcProperties properties, IdempotentClientInterceptor interceptor) {
            Set<String> channels = Set.copyOf(properties.client().channels());
            return (target, builder) -> {
                if (channels.contains(target)) {
                    builder.intercept(interceptor);
                }
            };
        }
    }

    /** Spring Security's user, in a class loaded only when Spring Security is present. */
    private static final class SecurityUser {
        private static final org.springframework.security.authentication.AuthenticationTrustResolver TRUST =
                new org.springframework.security.authentication.AuthenticationTrustResolverImpl();

        static Optional<String> current() {
            org.springframework.security.core.Authentication auth =
                    org.springframework.security.core.context.SecurityContextHolder.getContext().getAuthentication();
            if (auth == null || !auth.isAuthenticated() || TRUST.isAnonymous(auth)) {
                return Optional.empty();
            }
            return Optional.ofNullable(auth.getName()).filter(n -> !n.isEmpty());
        }
    }

}
