package dev.idem.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.util.JsonFormat;
import dev.idem.grpc.internal.MessageFingerprint;
import dev.idem.grpc.test.ChargeRequest;
import dev.idem.grpc.test.ChargeRequestV2;
import dev.idem.grpc.test.Kind;
import dev.idem.grpc.test.PaymentsGrpc;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fingerprint of a request message is taken of what the message says, not of how a client
 * wrote it: the same message encoded by hand in another field order, with packed or expanded
 * repeated fields and with a default value sent explicitly (as other protobuf runtimes and
 * languages may), or by a newer client that knows one more field, fingerprints alike.
 */
class MessageFingerprintTest {
    private final MessageFingerprint fingerprint = new MessageFingerprint(
            JsonFormat.TypeRegistry.getEmptyTypeRegistry(), List.of());

    private byte[] digest(ChargeRequest request) throws Exception {
        return fingerprint.digest(PaymentsGrpc.getChargeMethod(), request);
    }

    private static ChargeRequest canonical() {
        return ChargeRequest.newBuilder().setCustomer("c-42").setAmountCents(1200).setCurrency("EUR")
                .putTags("b", "2").putTags("a", "1").addItems(3).addItems(1).addItems(2).setKind(Kind.CARD).build();
    }

    @Test
    void theCanonicalFormIsRfc8785JsonWithProtoFieldNamesAndEnumNumbers() throws Exception {
        String form = new String(fingerprint.canonicalForm(PaymentsGrpc.getChargeMethod(), canonical()),
                StandardCharsets.UTF_8);

        assertThat(form).isEqualTo("{\"amount_cents\":\"1200\",\"currency\":\"EUR\",\"customer\":\"c-42\","
                + "\"items\":[3,1,2],\"kind\":1,\"tags\":{\"a\":\"1\",\"b\":\"2\"}}");
    }

    @Test
    void anotherWireEncodingOfTheSameMessageHasTheSameFingerprint() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        // Reverse field order, items unpacked, kind before customer, a default-valued field sent explicitly.
        out.writeEnum(6, Kind.CARD_VALUE);
        out.writeInt32(5, 3);
        out.writeInt32(5, 1);
        out.writeInt32(5, 2);
        out.writeString(7, "");
        writeEntry(out, "a", "1");
        writeEntry(out, "b", "2");
        out.writeString(3, "EUR");
        out.writeInt64(2, 1200);
        out.writeString(1, "c-42");
        out.flush();
        ChargeRequest decoded = ChargeRequest.parseFrom(bytes.toByteArray());

        assertThat(decoded.toByteArray()).isNotEqualTo(bytes.toByteArray());
        assertThat(digest(decoded)).isEqualTo(digest(canonical()));
    }

    @Test
    void aNewerClientsExtraFieldIsNotPartOfTheFingerprintTheServerTakes() throws Exception {
        ChargeRequestV2 newer = ChargeRequestV2.newBuilder().setCustomer("c-42").setAmountCents(1200)
                .setCurrency("EUR").putTags("a", "1").putTags("b", "2").addItems(3).addItems(1).addItems(2)
                .setKind(Kind.CARD).setCoupon("WELCOME").build();
        ChargeRequest asTheServerReadsIt = ChargeRequest.parseFrom(newer.toByteArray());

        assertThat(asTheServerReadsIt.getUnknownFields().asMap()).isNotEmpty();
        assertThat(digest(asTheServerReadsIt)).isEqualTo(digest(canonical()));
    }

    @Test
    void everyValueChangesIt() throws Exception {
        byte[] base = digest(canonical());

        assertThat(digest(canonical().toBuilder().setAmountCents(1201).build())).isNotEqualTo(base);
        assertThat(digest(canonical().toBuilder().setKind(Kind.BANK).build())).isNotEqualTo(base);
        assertThat(digest(canonical().toBuilder().addItems(4).build())).isNotEqualTo(base);
        assertThat(digest(canonical().toBuilder().setPriority(0).build())).as("explicit presence").isNotEqualTo(base);
        assertThat(fingerprint.digest(dev.idem.grpc.test.LedgerGrpc.getBookMethod(), canonical()))
                .as("another method").isNotEqualTo(base);
    }

    @Test
    void excludedPointersAreLeftOut() throws Exception {
        MessageFingerprint excluding = new MessageFingerprint(JsonFormat.TypeRegistry.getEmptyTypeRegistry(),
                List.of("/client_time"));

        assertThat(excluding.digest(PaymentsGrpc.getChargeMethod(), canonical().toBuilder().setClientTime("1")
                .build())).isEqualTo(excluding.digest(PaymentsGrpc.getChargeMethod(), canonical()));
    }

    @Test
    void anAnyOfAnUnregisteredTypeCannotBeFingerprinted() throws Exception {
        var method = io.grpc.MethodDescriptor.<Any, Any>newBuilder()
                .setType(io.grpc.MethodDescriptor.MethodType.UNARY).setFullMethodName("idem.test.X/Y")
                .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(Any.getDefaultInstance()))
                .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(Any.getDefaultInstance())).build();
        Any any = Any.pack(canonical());

        assertThatThrownBy(() -> fingerprint.digest(method, any))
                .isInstanceOf(MessageFingerprint.UnprintableMessageException.class)
                .hasMessageContaining("idem.test.X/Y");
        MessageFingerprint registered = new MessageFingerprint(JsonFormat.TypeRegistry.newBuilder()
                .add(ChargeRequest.getDescriptor()).build(), List.of());
        assertThat(registered.digest(method, any)).hasSize(32);
    }

    private static void writeEntry(CodedOutputStream out, String key, String value) throws Exception {
        ByteArrayOutputStream entry = new ByteArrayOutputStream();
        CodedOutputStream e = CodedOutputStream.newInstance(entry);
        e.writeString(2, value);        // value before key: any order is valid
        e.writeString(1, key);
        e.flush();
        out.writeByteArray(4, entry.toByteArray());
    }
}
