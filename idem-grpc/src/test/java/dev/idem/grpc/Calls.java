package dev.idem.grpc;

import dev.idem.grpc.test.ChargeReply;
import dev.idem.grpc.test.ChargeRequest;
import dev.idem.grpc.test.LedgerGrpc;
import dev.idem.grpc.test.PaymentsGrpc;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/** Blocking calls of the test services, with what came back: status, reply, headers, trailers. */
final class Calls {
    record Answer(Status status, ChargeReply reply, Metadata headers, Metadata trailers) {
        Status.Code code() {
            return status.getCode();
        }

        String trailer(String name) {
            return trailers == null ? null : trailers.get(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER));
        }

        String header(String name) {
            return headers == null ? null : headers.get(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER));
        }
    }

    private Calls() {
    }

    static Metadata metadata(String user, String key) {
        Metadata md = new Metadata();
        if (user != null) {
            md.put(Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER), user);
        }
        if (key != null) {
            md.put(GrpcIdempotency.KEY, key);
        }
        return md;
    }

    static Answer charge(Channel channel, String user, String key, ChargeRequest request) {
        return charge(channel, metadata(user, key), request, s -> s);
    }

    static Answer charge(Channel channel, Metadata md, ChargeRequest request,
            UnaryOperator<PaymentsGrpc.PaymentsBlockingStub> customize) {
        AtomicReference<Metadata> headers = new AtomicReference<>();
        AtomicReference<Metadata> trailers = new AtomicReference<>();
        Channel c = ClientInterceptors.intercept(channel, MetadataUtils.newCaptureMetadataInterceptor(headers,
                trailers), MetadataUtils.newAttachHeadersInterceptor(md));
        PaymentsGrpc.PaymentsBlockingStub stub = customize.apply(PaymentsGrpc.newBlockingStub(c)
                .withDeadlineAfter(20, TimeUnit.SECONDS));
        try {
            ChargeReply reply = stub.charge(request);
            return new Answer(Status.OK, reply, headers.get(), trailers.get());
        } catch (StatusRuntimeException e) {
            return new Answer(e.getStatus(), null, headers.get(), e.getTrailers());
        }
    }

    static Answer book(Channel channel, String user, String key, ChargeRequest request) {
        AtomicReference<Metadata> headers = new AtomicReference<>();
        AtomicReference<Metadata> trailers = new AtomicReference<>();
        Channel c = ClientInterceptors.intercept(channel, MetadataUtils.newCaptureMetadataInterceptor(headers,
                trailers), MetadataUtils.newAttachHeadersInterceptor(metadata(user, key)));
        try {
            ChargeReply reply = LedgerGrpc.newBlockingStub(c).withDeadlineAfter(20, TimeUnit.SECONDS).book(request);
            return new Answer(Status.OK, reply, headers.get(), trailers.get());
        } catch (StatusRuntimeException e) {
            return new Answer(e.getStatus(), null, headers.get(), e.getTrailers());
        }
    }

    static ChargeRequest request(long amount) {
        return ChargeRequest.newBuilder().setCustomer("c-42").setAmountCents(amount).setCurrency("EUR").build();
    }
}
