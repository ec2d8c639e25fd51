/**
 * Idempotent unary gRPC methods on grpc-java, on top of {@link dev.idem.engine.IdempotencyEngine}:
 * configure {@link dev.idem.grpc.GrpcIdempotency} once, wrap the services whose unary methods
 * change state with {@link dev.idem.grpc.GrpcIdempotency#intercept(io.grpc.BindableService)} on the
 * server, and give each logical call one key with {@link dev.idem.grpc.IdempotentClientInterceptor}
 * on the client.
 *
 * <p>Nullness: every parameter and return value in this package is non-null unless its
 * Javadoc says otherwise.
 */
package dev.idem.grpc;
