package dev.idem.engine;

import dev.idem.engine.protection.KeyVersion;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Keys and byte searches the protection tests share. */
final class ProtectionFixture {
    /** A card number no stored byte may show once outcomes are encrypted. */
    static final String PAN = "4242424242424242";

    private ProtectionFixture() {
    }

    /** A 32-byte key whose bytes are all {@code fill}: distinct per fill, and easy to search for. */
    static KeyVersion secretKey(String id, int fill) {
        byte[] secret = new byte[32];
        Arrays.fill(secret, (byte) fill);
        return KeyVersion.of(id, secret);
    }

    static boolean contains(byte[] haystack, String needle) {
        return contains(haystack, needle.getBytes(StandardCharsets.UTF_8));
    }

    static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
