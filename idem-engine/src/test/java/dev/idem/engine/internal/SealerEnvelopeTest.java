package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.OutcomeUnreadableException;
import dev.idem.engine.OutcomeUnreadableException.Reason;
import dev.idem.engine.protection.KeyProvider;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * Encryption at rest as a reader of old or damaged records meets it: the envelope is exactly the
 * documented format (another implementation, or a later version of idem, can read what this one
 * wrote, and this one reads an envelope built by hand from the format), every way an envelope is
 * cut, lengthened or altered is refused with the reason an operator needs (truncated, tampered,
 * key missing), an empty outcome seals, and a reader that meets records of several key versions
 * and many data keys, interleaved, opens each under its own key, also on a thread that never
 * read a record before.
 */
class SealerEnvelopeTest {
    private static final byte[] SECRET = bytes(7, 32);
    private static final KeyVersion K1 = KeyVersion.of("2026-01", SECRET);
    private static final KeyVersion K2 = KeyVersion.of("2026-06", bytes(9, 32));
    private static final IdempotencyKey KEY = IdempotencyKey.of("merchant", "charge", "k-1");
    private static final byte[] FP = bytes(3, 32);
    private static final byte[] PLAIN = "S{\"amount\":100}".getBytes(StandardCharsets.UTF_8);
    /** Magic, version and id length, the id "2026-01", salt, nonce, key check, length. */
    private static final int HEADER = 3 + 7 + 16 + 12 + 4 + 4;

    private final Sealer sealer = new Sealer(KeyRing.of(K1), false);

    private static byte[] bytes(int seed, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    @Test
    void theEnvelopeIsTheDocumentedFormatBothWays() throws Exception {
        byte[] sealed = sealer.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        byte[] salt = Arrays.copyOfRange(sealed, 10, 26);
        byte[] nonce = Arrays.copyOfRange(sealed, 26, 38);
        assertThat(Arrays.copyOfRange(sealed, 38, 42)).as("the key check").isEqualTo(keyCheck(SECRET));
        assertThat(decryptByHand(sealed, SECRET, salt, nonce, 'O')).isEqualTo(PLAIN);

        // And the other way: an envelope built from the format alone opens, for an outcome and a journal.
        byte[] handSalt = bytes(11, 16);
        byte[] handNonce = bytes(13, 12);
        byte[] journal = "I[]".getBytes(StandardCharsets.US_ASCII);
        assertThat(sealer.open(Sealer.Part.OUTCOME, KEY, FP, encryptByHand(PLAIN, handSalt, handNonce, 'O')))
                .isEqualTo(PLAIN);
        assertThat(sealer.open(Sealer.Part.JOURNAL, KEY, FP, encryptByHand(journal, handSalt, handNonce, 'J')))
                .isEqualTo(journal);
    }

    private static byte[] keyCheck(byte[] secret) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        return Arrays.copyOf(mac.doFinal("idem-key-check/v1".getBytes(StandardCharsets.US_ASCII)), 4);
    }

    private static SecretKeySpec dataKey(byte[] secret, byte[] salt) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        mac.update("idem-data-key/v1\0".getBytes(StandardCharsets.US_ASCII));
        return new SecretKeySpec(mac.doFinal(salt), "AES");
    }

    private static byte[] associatedData(byte[] envelope, int header, char part) {
        byte[] scope = KEY.scope().getBytes(StandardCharsets.UTF_8);
        byte[] operation = KEY.operation().getBytes(StandardCharsets.UTF_8);
        byte[] token = KEY.key().getBytes(StandardCharsets.US_ASCII);
        byte[] domain = "idem-seal/v1\0".getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(domain.length + 1 + header + 16 + scope.length + operation.length + token.length
                        + FP.length)
                .put(domain).put((byte) part).put(envelope, 0, header)
                .putInt(scope.length).put(scope).putInt(operation.length).put(operation)
                .putInt(token.length).put(token).putInt(FP.length).put(FP).array();
    }

    private static byte[] decryptByHand(byte[] sealed, byte[] secret, byte[] salt, byte[] nonce, char part)
            throws Exception {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.DECRYPT_MODE, dataKey(secret, salt), new GCMParameterSpec(128, nonce));
        cipher.updateAAD(associatedData(sealed, HEADER, part));
        return cipher.doFinal(sealed, HEADER, sealed.length - HEADER);
    }

    private static byte[] encryptByHand(byte[] plain, byte[] salt, byte[] nonce, char part) throws Exception {
        byte[] id = K1.id().getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[HEADER + plain.length + 16];
        ByteBuffer.wrap(out).put((byte) 'E').put((byte) 1).put((byte) id.length).put(id).put(salt).put(nonce)
                .put(keyCheck(SECRET)).putInt(plain.length + 16);
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.ENCRYPT_MODE, dataKey(SECRET, salt), new GCMParameterSpec(128, nonce));
        cipher.updateAAD(associatedData(out, HEADER, part));
        cipher.doFinal(plain, 0, plain.length, out, HEADER);
        return out;
    }

    @Test
    void anEmptyOutcomeSealsAndOpensAndItsCutTagIsTruncation() {
        byte[] sealed = sealer.seal(Sealer.Part.OUTCOME, KEY, FP, new byte[0]);
        assertThat(sealed).hasSize(HEADER + 16);
        assertThat(sealer.open(Sealer.Part.OUTCOME, KEY, FP, sealed)).isEmpty();
        assertThat(reasonOf(() -> sealer.open(Sealer.Part.OUTCOME, KEY, FP, Arrays.copyOf(sealed,
                sealed.length - 1)))).isEqualTo(Reason.TRUNCATED);
    }

    @Test
    void everyCutOfAnEnvelopeIsTruncationNamingTheKeyOnceItsIdIsWhole() {
        byte[] sealed = sealer.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        for (int length = 1; length < sealed.length; length++) {
            byte[] cut = Arrays.copyOf(sealed, length);
            OutcomeUnreadableException e = unreadable(() -> sealer.open(Sealer.Part.OUTCOME, KEY, FP, cut));
            assertThat(e.reason()).as("cut at %d", length).isEqualTo(Reason.TRUNCATED);
            assertThat(e.keyId()).as("cut at %d", length).isEqualTo(length >= 3 + 7 ? "2026-01" : null);
            assertThat(Sealer.keyIdOf(cut)).as("cut at %d", length).isEqualTo(length >= 3 + 7 ? "2026-01" : null);
        }
    }

    @Test
    void aLengthFieldShorterThanATagIsTamperingNotTruncation() {
        byte[] sealed = sealer.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        byte[] headerOnly = Arrays.copyOf(sealed, HEADER);
        ByteBuffer.wrap(headerOnly).putInt(HEADER - 4, 15);
        assertThat(reasonOf(() -> sealer.open(Sealer.Part.OUTCOME, KEY, FP, headerOnly)))
                .isEqualTo(Reason.TAMPERED);
        byte[] shortened = sealed.clone();
        ByteBuffer.wrap(shortened).putInt(HEADER - 4, 0);
        assertThat(reasonOf(() -> sealer.open(Sealer.Part.OUTCOME, KEY, FP, shortened)))
                .isEqualTo(Reason.TAMPERED);
    }

    @Test
    void bytesPastTheEndAreCountedAndAnotherFormatVersionIsNamed() {
        byte[] sealed = sealer.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        assertThatThrownBy(() -> sealer.open(Sealer.Part.OUTCOME, KEY, FP, Arrays.copyOf(sealed, sealed.length + 3)))
                .hasMessageContaining("has 3 bytes past its end");
        byte[] newer = sealed.clone();
        newer[1] = 2;
        OutcomeUnreadableException e = unreadable(() -> sealer.open(Sealer.Part.OUTCOME, KEY, FP, newer));
        assertThat(e.reason()).isEqualTo(Reason.TAMPERED);
        assertThat(e).hasMessageContaining("format version 2;");
    }

    @Test
    void anEngineWithoutKeysOrWithoutThatKeyNamesTheMissingKey() {
        byte[] sealed = sealer.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        for (Sealer reader : new Sealer[] {Sealer.NONE, new Sealer(KeyRing.of(K2), false)}) {
            OutcomeUnreadableException e = unreadable(() -> reader.open(Sealer.Part.OUTCOME, KEY, FP, sealed));
            assertThat(e.reason()).isEqualTo(Reason.KEY_MISSING);
            assertThat(e.keyId()).isEqualTo("2026-01");
            assertThat(e.key()).isEqualTo(KEY);
            // A record cut right after its header still names the key it needs.
            OutcomeUnreadableException cut = unreadable(() -> reader.open(Sealer.Part.OUTCOME, KEY, FP,
                    Arrays.copyOf(sealed, HEADER)));
            assertThat(cut.reason()).isEqualTo(Reason.KEY_MISSING);
        }
    }

    @Test
    void keyIdOfAndIsSealedReadOnlyEnvelopes() {
        assertThat(Sealer.keyIdOf(null)).isNull();
        assertThat(Sealer.keyIdOf(new byte[0])).isNull();
        assertThat(Sealer.keyIdOf(PLAIN)).isNull();
        assertThat(Sealer.keyIdOf(new byte[] {'E'})).isNull();
        assertThat(Sealer.keyIdOf(new byte[] {'E', 1})).isNull();
        assertThat(Sealer.isSealed(new byte[0])).isFalse();
        assertThat(Sealer.isSealed(null)).isFalse();
        assertThat(Sealer.isSealed(PLAIN)).isFalse();
        assertThat(Sealer.isSealed(new byte[] {'E'})).isTrue();
        // Clear bytes are read as they are unless refused; an empty outcome too.
        assertThat(sealer.open(Sealer.Part.OUTCOME, KEY, FP, new byte[0])).isEmpty();
        assertThat(reasonOf(() -> new Sealer(KeyRing.of(K1), true).open(Sealer.Part.OUTCOME, KEY, FP, new byte[0])))
                .isEqualTo(Reason.NOT_ENCRYPTED);
    }

    @Test
    void aReaderOpensManyDataKeysOfTwoVersionsInterleaved() {
        // One data key per write, so a reader meets more data keys than a thread keeps ready.
        Sealer old = new Sealer(KeyRing.of(K1), false, 1);
        Sealer current = new Sealer(KeyRing.of(K2), false, 1);
        Sealer reader = new Sealer(KeyRing.of(K2, K1), true);
        List<byte[]> sealed = new ArrayList<>();
        List<byte[]> plain = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            byte[] p = ("S" + i).getBytes(StandardCharsets.US_ASCII);
            plain.add(p);
            plain.add(p);
            sealed.add(old.seal(Sealer.Part.OUTCOME, KEY, FP, p));
            sealed.add(current.seal(Sealer.Part.OUTCOME, KEY, FP, p));
        }
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < sealed.size(); i++) {
                assertThat(reader.open(Sealer.Part.OUTCOME, KEY, FP, sealed.get(i))).isEqualTo(plain.get(i));
            }
        }
        // Repeated reads of the same two records (kept ready) still open under their own keys.
        for (int i = 0; i < 20; i++) {
            assertThat(reader.open(Sealer.Part.OUTCOME, KEY, FP, sealed.get(i % 2))).isEqualTo(plain.get(0));
        }
        // The same id with other bytes is the wrong key, whichever record was read before.
        Sealer impostor = new Sealer(KeyRing.of(KeyVersion.of("2026-01", bytes(8, 32))), false);
        assertThat(reasonOf(() -> impostor.open(Sealer.Part.OUTCOME, KEY, FP, sealed.get(0))))
                .isEqualTo(Reason.WRONG_KEY);
        assertThat(reader.open(Sealer.Part.OUTCOME, KEY, FP, sealed.get(0))).isEqualTo(plain.get(0));
    }

    @Test
    void everyReadMayBeItsThreadsFirst() throws Exception {
        // A virtual thread per task reads each record on a thread that never read one before.
        byte[] sealed = sealer.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        for (int i = 0; i < 3; i++) {
            Sealer reader = i == 0 ? sealer : new Sealer(KeyRing.of(K2, K1), false);
            AtomicReference<Object> read = new AtomicReference<>();
            Thread fresh = new Thread(() -> {
                try {
                    read.set(reader.open(Sealer.Part.OUTCOME, KEY, FP, sealed));
                } catch (RuntimeException e) {
                    read.set(e);
                }
            });
            fresh.start();
            fresh.join(10_000);
            assertThat(read.get()).isEqualTo(PLAIN);
        }
    }

    @Test
    void aProviderWithoutACurrentKeyOrThatFailsIsNamed() {
        byte[] sealed = sealer.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN);
        KeyProvider none = new KeyProvider() {
            @Override
            public KeyVersion current() {
                return null;
            }

            @Override
            public KeyVersion find(String id) {
                throw new IllegalStateException("vault down");
            }
        };
        Sealer broken = new Sealer(none, false);
        assertThatThrownBy(() -> broken.seal(Sealer.Part.OUTCOME, KEY, FP, PLAIN))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("returned no current key");
        OutcomeUnreadableException e = unreadable(() -> broken.open(Sealer.Part.OUTCOME, KEY, FP, sealed));
        assertThat(e.reason()).isEqualTo(Reason.KEY_PROVIDER_FAILED);
        assertThat(e.getCause()).hasMessage("vault down");
    }

    private static OutcomeUnreadableException unreadable(ThrowingCallable call) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(call);
        assertThat(t).isInstanceOf(OutcomeUnreadableException.class);
        return (OutcomeUnreadableException) t;
    }

    private static Reason reasonOf(ThrowingCallable call) {
        return unreadable(call).reason();
    }
}
