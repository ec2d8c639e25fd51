package dev.idem.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.grpc.CallerResolver;
import dev.idem.grpc.GrpcIdempotency;
import dev.idem.grpc.IdempotentClientInterceptor;
import dev.idem.grpc.IdempotentGrpcService;
import io.grpc.BindableService;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.grpc.client.GrpcChannelBuilderCustomizer;
import org.springframework.grpc.server.GlobalServerInterceptor;

/**
 * idem-grpc with Spring gRPC: the global server interceptor covers the marked services' methods
 * (checked at startup), the caller comes from Spring Security or the configured gateway header,
 * and the channel customizer keys the calls of the channels named in the properties. The server and
 * channels here are real in-process gRPC ones built from the context's beans, as Spring gRPC builds
 * them (global interceptors around each service, customizers on each channel builder).
 */
class IdemGrpcAutoConfigurationTest {
    static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    static MethodDescriptor<String, String> method(String service, String name, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<String, String>newBuilder().setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service, name))
                .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();
    }

    static final MethodDescriptor<String, String> PAY = method("test.Payments", "Pay", MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<String, String> QUOTE = method("test.Payments", "Quote",
            MethodDescriptor.MethodType.UNARY);
    static final MethodDescriptor<String, String> WATCH = method("test.Payments", "Watch",
            MethodDescriptor.MethodType.SERVER_STREAMING);

    /** Two unary methods and a streaming one; each run counted. */
    static class Payments implements BindableService {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public ServerServiceDefinition bindService() {
            return ServerServiceDefinition.builder("test.Payments")
                    .addMethod(PAY, ServerCalls.asyncUnaryCall((req, out) -> {
                        out.onNext("paid " + req + " #" + runs.incrementAndGet());
                        out.onCompleted();
                    }))
                    .addMethod(QUOTE, ServerCalls.asyncUnaryCall((req, out) -> {
                        out.onNext("quote #" + runs.incrementAndGet());
                        out.onCompleted();
                    }))
                    .addMethod(WATCH, ServerCalls.asyncServerStreamingCall((req, out) -> out.onCompleted()))
                    .build();
        }
    }

    @IdempotentGrpcService(methods = "Pay")
    static class MarkedPayments extends Payments {
    }

    @IdempotentGrpcService
    static class MarkedWithStreaming extends Payments {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class, IdemGrpcAutoConfiguration.class))
            .withPropertyValues("idem.purge.enabled=false", "idem.store.kind=memory");

    @Test
    void theMarkedServicesMethodsAreCoveredThroughAGlobalInterceptorOrderedLast() {
        runner.withBean(MarkedPayments.class).run(context -> {
            IdempotentGrpcServices services = context.getBean(IdempotentGrpcServices.class);

            assertThat(services.coveredMethods()).containsExactly("test.Payments/Pay");
            assertThat(services.getOrder()).isEqualTo(org.springframework.core.Ordered.LOWEST_PRECEDENCE);
            assertThat(context.findAnnotationOnBean("idempotentGrpcServices", GlobalServerInterceptor.class))
                    .isNotNull();
            assertThat(context).hasSingleBean(GrpcIdempotency.class).hasSingleBean(IdempotentClientInterceptor.class);
        });
    }

    @Test
    void aMarkedServiceWithAStreamingMethodFailsTheStartupNamingIt() {
        runner.withBean(MarkedWithStreaming.class).run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("test.Payments/Watch (SERVER_STREAMING)"));
    }

    @Test
    void callsOfACoveredMethodRunOnceAndTheOthersPassThrough() {
        runner.withBean(MarkedPayments.class).withPropertyValues("idem.grpc.server.caller-header=x-user")
                .run(context -> {
                    MarkedPayments service = context.getBean(MarkedPayments.class);
                    ServerInterceptor global = context.getBean(IdempotentGrpcServices.class);
                    String name = InProcessServerBuilder.generateName();
                    Server server = InProcessServerBuilder.forName(name)
                            .addService(ServerInterceptors.interceptForward(service, global)).build().start();
                    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
                    try {
                        Metadata md = new Metadata();
                        md.put(Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER), "alice");
                        md.put(GrpcIdempotency.KEY, "k-1");
                        var keyed = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(md));
                        String first = ClientCalls.blockingUnaryCall(keyed, PAY, CallOptions.DEFAULT, "10");
                        String again = ClientCalls.blockingUnaryCall(keyed, PAY, CallOptions.DEFAULT, "10");
                        ClientCalls.blockingUnaryCall(keyed, QUOTE, CallOptions.DEFAULT, "x");
                        ClientCalls.blockingUnaryCall(keyed, QUOTE, CallOptions.DEFAULT, "x");
                        StatusRuntimeException anonymous = org.assertj.core.api.Assertions.catchThrowableOfType(
                                StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(channel, PAY,
                                        CallOptions.DEFAULT.withOption(IdempotentClientInterceptor.KEY_OPTION, "k"),
                                        "10"));

                        assertThat(first).isEqualTo("paid 10 #1").isEqualTo(again);
                        assertThat(service.runs).hasValue(3);
                        assertThat(anonymous).isNotNull();
                    } finally {
                        channel.shutdownNow();
                        server.shutdownNow();
                    }
                });
    }

    @Test
    void withoutACallerHeaderOrASecurityUserACallIsUnauthenticated() {
        runner.withBean(MarkedPayments.class).run(context -> {
            CallerResolver callers = context.getBean(CallerResolver.class);

            assertThat(callers.resolve(null, new Metadata())).isEmpty();
        });
    }

    @Test
    void theSpringSecurityUserIsTheCaller() {
        runner.run(context -> {
            CallerResolver callers = context.getBean(CallerResolver.class);
            var auth = org.springframework.security.authentication.UsernamePasswordAuthenticationToken.authenticated(
                    "bob", "n/a", List.of());
            org.springframework.security.core.context.SecurityContextHolder.getContext().setAuthentication(auth);
            try {
                assertThat(callers.resolve(null, new Metadata())).contains("bob");
            } finally {
                org.springframework.security.core.context.SecurityContextHolder.clearContext();
            }
        });
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void onlyTheNamedChannelsGetTheClientInterceptor() {
        runner.withPropertyValues("idem.grpc.client.channels=payments").run(context -> {
            GrpcChannelBuilderCustomizer customizer = context.getBean(GrpcChannelBuilderCustomizer.class);
            List<String> keys = new CopyOnWriteArrayList<>();
            ServerInterceptor record = new ServerInterceptor() {
                @Override
                public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                        ServerCallHandler<Q, R> next) {
                    keys.add(String.valueOf(headers.get(GrpcIdempotency.KEY)));
                    return next.startCall(call, headers);
                }
            };
            String name = InProcessServerBuilder.generateName();
            Server server = InProcessServerBuilder.forName(name)
                    .addService(ServerInterceptors.intercept(new Payments(), record)).build().start();
            InProcessChannelBuilder payments = InProcessChannelBuilder.forName(name);
            InProcessChannelBuilder ledger = InProcessChannelBuilder.forName(name);
            customizer.customize("payments", payments);
            customizer.customize("ledger", ledger);
            ManagedChannel a = payments.build();
            ManagedChannel b = ledger.build();
            try {
                ClientCalls.blockingUnaryCall(a, PAY, CallOptions.DEFAULT, "1");
                ClientCalls.blockingUnaryCall(b, PAY, CallOptions.DEFAULT, "1");
            } finally {
                a.shutdownNow();
                b.shutdownNow();
                server.shutdownNow();
            }
            assertThat(keys.get(0)).hasSize(36);
            assertThat(keys.get(1)).isEqualTo("null");
        });
    }

    @Test
    void itStaysOffWhenDisabledOrWithoutSpringGrpc() {
        runner.withBean(MarkedPayments.class).withPropertyValues("idem.grpc.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(GrpcIdempotency.class));
        runner.withBean(MarkedPayments.class)
                .withClassLoader(new FilteredClassLoader(GlobalServerInterceptor.class, GrpcChannelBuilderCustomizer.class))
                .run(context -> assertThat(context).doesNotHaveBean(IdempotentGrpcServices.class)
                        .doesNotHaveBean(GrpcChannelBuilderCustomizer.class));
        runner.withClassLoader(new FilteredClassLoader(GrpcIdempotency.class))
                .run(context -> assertThat(context).doesNotHaveBean(IdempotentGrpcServices.class));
    }

}
