package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonMappingException;
import dev.idem.engine.JsonCodec;
import dev.idem.engine.RequestSerializationException;
import dev.idem.engine.internal.json.PointerSet;
import dev.idem.engine.protection.KeyVersion;
import java.io.IOException;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * When an object request cannot be written as JSON (the server's fault, not the client's), the
 * error names the request's type and the library's own reason, without Jackson's location
 * trail, and adds how to register java.time support exactly when the reason is a missing
 * java.time module; a library failing with no message at all still gives a usable error. Also
 * the keyed digest behind keyed fingerprints behaves as a {@link java.security.MessageDigest}:
 * reset forgets what was fed, and its length is HMAC-SHA-256's.
 */
class RequestWriteFailureTest {
    private static Fingerprinter failingWith(Exception failure) {
        JsonCodec codec = new JsonCodec() {
            @Override
            public byte[] writeValue(Object value) throws IOException {
                throw new AssertionError("not used");
            }

            @Override
            public byte[] writeRequest(Object request) throws IOException {
                if (failure instanceof IOException io) {
                    throw io;
                }
                throw (RuntimeException) failure;
            }

            @Override
            public Object readValue(byte[] json, int offset, int length, Type type) {
                throw new AssertionError("not used");
            }
        };
        return new Fingerprinter(codec, 1024, PointerSet.EMPTY);
    }

    private static String messageFor(Exception failure) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(
                () -> failingWith(failure).fingerprint("charge", Map.of("at", 1), PointerSet.EMPTY));
        assertThat(t).isInstanceOf(RequestSerializationException.class).hasCause(failure);
        return t.getMessage();
    }

    @Test
    void theReasonIsTheLibrarysOwnAndTheJavaTimeHintOnlyWhenItIsAboutJavaTime() {
        String plain = messageFor(new IOException("cannot write a Widget"));
        assertThat(plain).contains("request of type " + Map.of("at", 1).getClass().getName())
                .endsWith("cannot be written as JSON: cannot write a Widget");
        assertThat(messageFor(new IOException("Java 8 date/time type `java.time.Instant` not supported")))
                .endsWith(Fingerprinter.JAVA_TIME_FIX);
        assertThat(messageFor(new IllegalStateException("add module jackson-datatype-jsr310")))
                .endsWith(Fingerprinter.JAVA_TIME_FIX);
        assertThat(messageFor(new IllegalStateException((String) null))).endsWith("cannot be written as JSON: null");
    }

    @Test
    void jacksonsLocationTrailIsLeftOut() {
        JsonMappingException e = JsonMappingException.from((com.fasterxml.jackson.core.JsonParser) null,
                "no serializer for Widget");
        e.prependPath(new JsonMappingException.Reference(Map.class, "widget"));
        assertThat(e.getMessage()).contains("reference chain");
        assertThat(messageFor(e)).endsWith("cannot be written as JSON: no serializer for Widget");
    }

    @Test
    void theKeyedDigestResetsAndHasHmacSha256sLength() throws Exception {
        KeyVersion secret = KeyVersion.of("fp-1", new byte[32]);
        MacDigest digest = MacDigest.borrow(secret);
        assertThat(digest.getDigestLength()).isEqualTo(32);
        digest.update("forgotten".getBytes(StandardCharsets.US_ASCII));
        digest.reset();
        digest.update((byte) 'a');
        digest.update("bc".getBytes(StandardCharsets.US_ASCII));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(new byte[32], "HmacSHA256"));
        assertThat(digest.digest()).isEqualTo(mac.doFinal("abc".getBytes(StandardCharsets.US_ASCII)));
        MacDigest.giveBack(digest);
    }
}
