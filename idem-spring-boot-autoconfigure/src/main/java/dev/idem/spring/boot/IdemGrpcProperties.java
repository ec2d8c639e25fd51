package dev.idem.spring.boot;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code idem.grpc.*} properties of {@link IdemGrpcAutoConfiguration}: idem-grpc's interceptors
 * with Spring gRPC.
 *
 * @param enabled Whether idem-grpc's interceptors are auto-configured when Spring gRPC and idem-grpc
 *     are on the class path.
 * @param server The server interceptor, on services annotated @IdempotentGrpcService.
 * @param client The client interceptor, on the channels named here.
 */
@ConfigurationProperties(prefix = "idem.grpc")
record IdemGrpcProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue Server server,
        @DefaultValue Client client) {

    /**
     * {@code idem.grpc.server.*}.
     *
     * @param callerHeader A request header carrying the caller's identity as a trusted gateway in
     *     front of the server authenticated it, used (as it is) when Spring Security names no
     *     authenticated user; unset: only Spring Security's user.
     */
    record Server(@Nullable String callerHeader) {
    }

    /**
     * {@code idem.grpc.client.*}.
     *
     * @param channels The channels whose unary calls get one idempotency key each (the names the
     *     application passes to GrpcChannelFactory.createChannel); empty: none.
     */
    record Client(@DefaultValue List<String> channels) {
    }
}
