package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Why {@code keyedFingerprints} exists: a plain fingerprint is SHA-256 over the operation and the
 * canonical request, both known in form to whoever reads the store, so a request with little
 * entropy (a 4-digit PIN, an amount, a yes or no) is recovered by trying every candidate. Here
 * the reader recovers a PIN from the stored fingerprint in at most 10,000 guesses (the test
 * prints how many and how long they took on this machine); with keyed fingerprints the same
 * 10,000 guesses find nothing.
 */
class LowEntropyRequestTest {
    private static final byte[] DOMAIN = "idem-fingerprint/v1\0".getBytes(StandardCharsets.US_ASCII);

    /** What a reader of idem's source computes for a guess: the plain fingerprint's formula. */
    private static byte[] plainFingerprint(String operation, String json) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(DOMAIN);
        sha.update(operation.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update((byte) 'J');
        sha.update(CanonicalJson.canonicalizeToUtf8(json));
        return sha.digest();
    }

    /** The PIN whose guessed request gives {@code stored}, and how many guesses it took; null if none did. */
    private static int[] guess(byte[] stored) throws Exception {
        for (int pin = 0; pin < 10_000; pin++) {
            String guess = "{\"account\":\"acc-1\",\"pin\":\"" + String.format("%04d", pin) + "\"}";
            if (Arrays.equals(plainFingerprint("unlock", guess), stored)) {
                return new int[] {pin, pin + 1};
            }
        }
        return null;
    }

    private static byte[] storedFingerprint(IdempotencyEngineBuilder builder) {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        IdempotencyKey key = IdempotencyKey.of("customer-7", "unlock", "k-1");
        try (IdempotencyEngine engine = builder.store(store).build()) {
            engine.execute(key, "{\"pin\":\"9137\",\"account\":\"acc-1\"}", String.class, ctx -> "unlocked");
        }
        return store.find(key).orElseThrow().fingerprint();
    }

    @Test
    void aFourDigitPinIsRecoveredFromAPlainFingerprintAndNotFromAKeyedOne() throws Exception {
        byte[] plain = storedFingerprint(IdempotencyEngine.builder());
        long start = System.nanoTime();
        int[] found = guess(plain);
        long micros = (System.nanoTime() - start) / 1000;
        byte[] keyed = storedFingerprint(IdempotencyEngine.builder().keyedFingerprints(
                KeyRing.of(KeyVersion.of("f1", "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII)))));

        assertThat(found).as("the PIN recovered from the plain fingerprint").isNotNull();
        assertThat(found[0]).isEqualTo(9137);
        System.out.printf("plain fingerprint: PIN 9137 recovered after %d guesses in %d us (all 10,000: at most"
                + " %d us)%n", found[1], micros, micros * 10_000 / found[1]);
        assertThat(guess(keyed)).as("a guess against the keyed fingerprint").isNull();
    }
}
