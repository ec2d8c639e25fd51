package dev.idem.spring.boot;

import dev.idem.grpc.GrpcIdempotency;
import dev.idem.grpc.IdempotentGrpcService;
import io.grpc.BindableService;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * The server interceptor of the services annotated {@link IdempotentGrpcService}: a global
 * interceptor of Spring gRPC that runs the covered methods through {@link GrpcIdempotency}'s
 * interceptor and passes every other call through untouched. Ordered last, so that the other
 * global interceptors (authentication) run before it. The covered methods are found, and checked
 * as {@link GrpcIdempotency#intercept(BindableService, String...)} checks them, once every bean
 * exists: a covered method that does not exist or streams fails the startup, naming it.
 */
public final class IdempotentGrpcServices implements ServerInterceptor, Ordered, SmartInitializingSingleton {
    private final GrpcIdempotency idempotency;
    private final ListableBeanFactory beans;
    private volatile Set<String> covered = Set.of();

    IdempotentGrpcServices(GrpcIdempotency idempotency, ListableBeanFactory beans) {
        this.idempotency = idempotency;
        this.beans = beans;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Set<String> methods = new HashSet<>();
        for (Map.Entry<String, BindableService> bean : beans.getBeansOfType(BindableService.class).entrySet()) {
            Class<?> type = AopUtils.getTargetClass(bean.getValue());
            IdempotentGrpcService marked = AnnotatedElementUtils.findMergedAnnotation(type,
                    IdempotentGrpcService.class);
            if (marked == null) {
                continue;
            }
            ServerServiceDefinition service = bean.getValue().bindService();
            try {
                ServerServiceDefinition checked = marked.methods().length == 0 ? idempotency.intercept(service)
                        : idempotency.intercept(service, marked.methods());
                for (ServerMethodDefinition<?, ?> m : checked.getMethods()) {
                    String bare = m.getMethodDescriptor().getBareMethodName();
                    if (marked.methods().length == 0 || java.util.List.of(marked.methods()).contains(bare)) {
                        methods.add(m.getMethodDescriptor().getFullMethodName());
                    }
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("@IdempotentGrpcService on bean '" + bean.getKey() + "' ("
                        + type.getName() + "): " + e.getMessage(), e);
            }
        }
        covered = Set.copyOf(methods);
    }

    /**
     * The full names of the covered methods.
     *
     * @return the covered methods, {@code package.Service/Method}
     */
    public Set<String> coveredMethods() {
        return covered;
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
            ServerCallHandler<ReqT, RespT> next) {
        if (!covered.contains(call.getMethodDescriptor().getFullMethodName())) {
            return next.startCall(call, headers);
        }
        return idempotency.serverInterceptor().interceptCall(call, headers, next);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
