package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.OutcomeUnreadableException;
import dev.idem.engine.OutcomeUnreadableException.Reason;
import dev.idem.engine.internal.json.Jackson2JsonCodec;
import dev.idem.engine.internal.json.PointerSet;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** The envelope's format and bindings, the keyed fingerprint's, and that key bytes never show. */
class SealerAndKeysTest {
    private static final byte[] SECRET = secret(7);
    private static final KeyVersion K1 = KeyVersion.of("2026-01", SECRET);
    private static final IdempotencyKey KEY = IdempotencyKey.of("merchant", "charge", "k-1");
    private static final byte[] FP = new byte[32];
    private static final byte[] PLAIN = "S{\"card\":\"4242424242424242\"}".getBytes(StandardCharsets.UTF_8);

    private static byte[] secret(int seed) {
        byte[] s = new byte[32];
        for (int i = 0; i < s.length; i++) {
            s[i] = (byte) (seed * 31 + i * 7);
        }
        return s;
    }

    private final Sealer sealer = new Sealer(KeyRing.of(K1), false);

    @Test
    void theEnvelopeNamesItsKeyAndItsLengthAndReadsBack() {
        byte[] sealed = sealer.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        assertThat(sealed[0]).isEqualTo((byte) 'E');
        assertThat(sealed[1]).isEqualTo((byte) 1);
        assertThat(Sealer.keyIdOf(sealed)).isEqualTo("2026-01");
        int header = 3 + 7 + 16 + 12 + 4 + 4;
        assertThat(ByteBuffer.wrap(sealed, header - 4, 4).getInt()).isEqualTo(PLAIN.length + 16);
        assertThat(sealed).hasSize(header + PLAIN.length + 16);
        assertThat(sealed.length - PLAIN.length).isLessThanOrEqualTo(Sealer.maxOverhead());
        assertThat(sealer.open(Sealer.Part.OUTCOME, KEY, FP, sealed)).isEqualTo(PLAIN);
        // Each write has its own nonce, so equal outcomes never look equal in the store.
        assertThat(sealer.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN)).isNotEqualTo(sealed);
    }

    @Test
    void aDataKeyIsReplacedAfterItsShareOfWritesAndOnRotationAndOldOnesStillOpen() {
        Sealer rotating = new Sealer(KeyRing.of(K1), false, 2);
        byte[][] sealed = new byte[5][];
        for (int i = 0; i < sealed.length; i++) {
            sealed[i] = rotating.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        }
        int salt = 3 + 7;
        assertThat(Arrays.copyOfRange(sealed[0], salt, salt + 16)).isEqualTo(Arrays.copyOfRange(sealed[1], salt,
                salt + 16)).isNotEqualTo(Arrays.copyOfRange(sealed[2], salt, salt + 16));
        assertThat(Arrays.copyOfRange(sealed[2], salt, salt + 16)).isNotEqualTo(Arrays.copyOfRange(sealed[4], salt,
                salt + 16));
        for (byte[] s : sealed) {
            assertThat(sealer.open(Sealer.Part.OUTCOME, KEY, FP, s)).isEqualTo(PLAIN);
        }
        // A provider that makes a new instance of the same key per call still reads and writes under it.
        Sealer fresh = new Sealer(new dev.idem.engine.protection.KeyProvider() {
            @Override
            public KeyVersion current() {
                return KeyVersion.of("2026-01", SECRET);
            }

            @Override
            public KeyVersion find(String id) {
                return KeyVersion.of(id, SECRET);
            }
        }, false);
        byte[] a = fresh.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        byte[] b = fresh.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        assertThat(Arrays.copyOfRange(a, salt, salt + 16)).isEqualTo(Arrays.copyOfRange(b, salt, salt + 16));
        assertThat(fresh.open(Sealer.Part.OUTCOME, KEY, FP, a)).isEqualTo(PLAIN);
        assertThat(sealer.open(Sealer.Part.OUTCOME, KEY, FP, b)).isEqualTo(PLAIN);
    }

    @Test
    void anEnvelopeOpensOnlyForItsOwnRecordAndPart() {
        byte[] sealed = sealer.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        byte[] otherFp = FP.clone();
        otherFp[0] = 1;
        for (Runnable r : new Runnable[] {
            () -> sealer.open(Sealer.Part.JOURNAL, KEY, FP, sealed),
            () -> sealer.open(Sealer.Part.OUTCOME, KEY, otherFp, sealed),
            () -> sealer.open(Sealer.Part.OUTCOME, IdempotencyKey.of("merchant", "charge", "k-2"), FP, sealed),
            () -> sealer.open(Sealer.Part.OUTCOME, IdempotencyKey.of("merchant", "refund", "k-1"), FP, sealed),
            () -> sealer.open(Sealer.Part.OUTCOME, IdempotencyKey.of("merchant2", "charge", "k-1"), FP, sealed)}) {
            assertThatThrownBy(r::run).isInstanceOfSatisfying(OutcomeUnreadableException.class,
                    e -> assertThat(e.reason()).isEqualTo(Reason.TAMPERED));
        }
    }

    @Test
    void bytesPastTheEndOrAnAlteredHeaderAreRefused() {
        byte[] sealed = sealer.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        byte[] longer = Arrays.copyOf(sealed, sealed.length + 1);
        assertThatThrownBy(() -> sealer.open(Sealer.Part.OUTCOME, KEY, FP, longer))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.TAMPERED));
        byte[] salted = sealed.clone();
        salted[12] ^= 1;
        assertThatThrownBy(() -> sealer.open(Sealer.Part.OUTCOME, KEY, FP, salted))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.TAMPERED));
        byte[] newer = sealed.clone();
        newer[1] = 2;
        assertThatThrownBy(() -> sealer.open(Sealer.Part.OUTCOME, KEY, FP, newer))
                .hasMessageContaining("format version 2");
    }

    @Test
    void aKeyedFingerprintIsHmacSha256OfThePlainFingerprintsInput() throws Exception {
        byte[] request = "raw request".getBytes(StandardCharsets.UTF_8);
        Fingerprinter keyed = new Fingerprinter(new Jackson2JsonCodec(new ObjectMapper()), 1024, PointerSet.EMPTY,
                KeyRing.of(K1));
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET, "HmacSHA256"));
        mac.update("idem-fingerprint/v1\0".getBytes(StandardCharsets.US_ASCII));
        mac.update("charge".getBytes(StandardCharsets.UTF_8));
        mac.update((byte) 0);
        mac.update((byte) 'B');
        mac.update(request);
        byte[] expected = ByteBuffer.allocate(3 + 7 + 32).put((byte) 'K').put((byte) 1).put((byte) 7)
                .put("2026-01".getBytes(StandardCharsets.US_ASCII)).put(mac.doFinal()).array();
        assertThat(keyed.fingerprint("charge", request, PointerSet.EMPTY)).isEqualTo(expected);
        // A JSON request goes through the same canonical form as the plain digest.
        assertThat(keyed.fingerprint("charge", "{\"b\":1, \"a\":2}", PointerSet.EMPTY))
                .isEqualTo(keyed.fingerprint("charge", "{\"a\":2,\"b\":1}", PointerSet.EMPTY));
        assertThat(Fingerprinter.keyedId(expected)).isEqualTo("2026-01");
        assertThat(Fingerprinter.keyedId(new byte[32])).isNull();
    }

    @Test
    void keyBytesNeverShowInTextsOrErrors() {
        String base64 = Base64.getEncoder().encodeToString(SECRET);
        String hex = HexFormat.of().formatHex(SECRET);
        KeyRing ring = KeyRing.fromBase64(new LinkedHashMap<>(Map.of("2026-01", base64)), null);
        byte[] sealed = sealer.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        byte[] cut = Arrays.copyOf(sealed, sealed.length - 3);
        String[] texts = {
            K1.toString(), ring.toString(), String.valueOf(K1.secretKey()),
            message(() -> new Sealer(KeyRing.of(KeyVersion.of("2026-01", secret(8))), false)
                    .open(Sealer.Part.OUTCOME, KEY, FP, sealed)),
            message(() -> sealer.open(Sealer.Part.OUTCOME, KEY, FP, cut)),
            message(() -> KeyVersion.fromBase64("bad", base64.substring(0, 10) + "!" + base64.substring(11))),
            message(() -> KeyVersion.fromBase64("short", base64.substring(0, 12))),
            message(() -> KeyRing.fromBase64(Map.of("a", base64, "b", base64), "c"))};
        for (String text : texts) {
            assertThat(text).doesNotContain(base64).doesNotContain(base64.substring(0, 12))
                    .doesNotContainIgnoringCase(hex.substring(0, 16));
        }
        assertThat(texts[0]).isEqualTo("KeyVersion[2026-01, 256 bits]");
        assertThat(texts[1]).isEqualTo("KeyRing[current=2026-01, ids=[2026-01]]");
    }

    private static String message(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            return e.toString();
        }
        throw new AssertionError("expected a failure");
    }

    @Test
    void keysAndRingsAreValidated() {
        assertThatThrownBy(() -> KeyVersion.of("a b", SECRET)).hasMessageContaining("a b");
        assertThatThrownBy(() -> KeyVersion.of("", SECRET)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KeyVersion.of("x".repeat(65), SECRET)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KeyVersion.of("k", new byte[15])).hasMessageContaining("15 bytes");
        assertThatThrownBy(() -> KeyVersion.of("k", new byte[65])).hasMessageContaining("65 bytes");
        assertThatThrownBy(() -> KeyRing.of(K1, KeyVersion.of("2026-01", secret(3))))
                .hasMessageContaining("given twice");
        String b64 = Base64.getEncoder().encodeToString(SECRET);
        assertThatThrownBy(() -> KeyRing.fromBase64(Map.of("a", b64, "b", b64), null))
                .hasMessageContaining("several keys");
        assertThatThrownBy(() -> KeyRing.fromBase64(Map.of(), null)).hasMessageContaining("no key");
        KeyRing ring = KeyRing.fromBase64(new LinkedHashMap<>(Map.of("a", b64)), "a");
        assertThat(ring.current().id()).isEqualTo("a");
        assertThat(ring.find("b")).isNull();
        // URL-safe Base64 without padding, as some secret stores give it, is read too.
        String url = Base64.getUrlEncoder().withoutPadding().encodeToString(secret(200));
        assertThat(KeyVersion.fromBase64("u", url).secretKey().getEncoded()).isEqualTo(secret(200));
    }
}
