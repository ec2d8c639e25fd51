package dev.idem.spring.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.grpc.GrpcIdempotency;
import dev.idem.grpc.IdempotentClientInterceptor;
import dev.idem.grpc.IdempotentGrpcService;
import dev.idem.spring.boot.IdemAutoConfiguration;
import dev.idem.spring.boot.IdemGrpcAutoConfiguration;
import io.grpc.BindableService;
import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.grpc.client.autoconfigure.GrpcClientAutoConfiguration;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerAutoConfiguration;
import org.springframework.boot.grpc.server.autoconfigure.GrpcServerServicesAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.grpc.client.GrpcChannelFactory;

/**
 * idem-grpc in a Boot 4.1 application with Spring gRPC: the server Spring starts (Boot's own
 * in-process server, its services and global interceptors as Spring gRPC wires them) runs the marked service's method once per key through the global interceptor,
 * and a channel the properties opt in gets a key on each call.
 */
class Boot4GrpcTest {
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

    /** The channel the application opts in: Spring gRPC's in-process client to the server above. */
    static final String TARGET = "in-process:idem-boot4";

    static final MethodDescriptor<String, String> PAY = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("test.Payments/Pay")
            .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

    /** A payment service whose every call is counted and whose keys are recorded. */
    @IdempotentGrpcService
    static class Payments implements BindableService {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public ServerServiceDefinition bindService() {
            return ServerServiceDefinition.builder("test.Payments")
                    .addMethod(PAY, ServerCalls.asyncUnaryCall((req, out) -> {
                        out.onNext("paid " + req + " #" + runs.incrementAndGet());
                        out.onCompleted();
                    }))
                    .build();
        }
    }

    @Test
    void theServerSpringStartsRunsAMarkedMethodOncePerKeyAndAnOptedInChannelKeysEachCall() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, GrpcServerAutoConfiguration.class,
                        GrpcServerServicesAutoConfiguration.class, GrpcClientAutoConfiguration.class,
                        IdemAutoConfiguration.class, IdemGrpcAutoConfiguration.class))
                .withBean(Payments.class)
                .withPropertyValues("spring.grpc.server.inprocess.name=idem-boot4", "idem.store.kind=memory",
                        "idem.purge.enabled=false", "idem.grpc.server.caller-header=x-user",
                        "idem.grpc.client.channels=" + TARGET)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Payments payments = context.getBean(Payments.class);
                    GrpcChannelFactory channels = context.getBean(GrpcChannelFactory.class);
                    ManagedChannel channel = channels.createChannel(TARGET);
                    Metadata md = new Metadata();
                    md.put(Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER), "alice");
                    var asAlice = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(md));
                    CallOptions keyed = CallOptions.DEFAULT.withOption(IdempotentClientInterceptor.KEY_OPTION, "k-1");

                    String first = ClientCalls.blockingUnaryCall(asAlice, PAY, keyed, "10");
                    String again = ClientCalls.blockingUnaryCall(asAlice, PAY, keyed, "10");
                    String fresh = ClientCalls.blockingUnaryCall(asAlice, PAY, CallOptions.DEFAULT, "10");

                    assertThat(first).isEqualTo("paid 10 #1").isEqualTo(again);
                    assertThat(fresh).isEqualTo("paid 10 #2");
                    assertThat(payments.runs).hasValue(2);
                    assertThat(context.getBean(GrpcIdempotency.class)).isNotNull();
                });
    }
}
