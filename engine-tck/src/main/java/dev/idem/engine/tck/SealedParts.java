package dev.idem.engine.tck;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * Finds the engine's encrypted envelopes in a record's raw bytes and reads what names the AES-GCM
 * key and nonce each was sealed with. The envelope (format 1) starts {@code 'E' 0x01}, the key
 * id's length and the key id, then the 16-byte salt that names the data key and the 12-byte nonce.
 * An envelope is looked for as the backend's client returns it: raw, in hex, or in Base64 (where it
 * starts a value, so its Base64 starts with the header's).
 */
final class SealedParts {
    /** The salt's and the nonce's length: together they name one use of a GCM key. */
    private static final int SALT_AND_NONCE = 16 + 12;

    private SealedParts() {
    }

    /**
     * The salt and nonce of every envelope sealed under {@code keyId} in {@code raw}, each as hex.
     *
     * @param raw the record's raw bytes
     * @param keyId the key id the envelopes name
     * @return one entry per envelope found
     */
    static List<String> keyUses(byte[] raw, String keyId) {
        byte[] id = keyId.getBytes(StandardCharsets.US_ASCII);
        byte[] header = new byte[3 + id.length];
        header[0] = 'E';
        header[1] = 1;
        header[2] = (byte) id.length;
        System.arraycopy(id, 0, header, 3, id.length);
        int wanted = header.length + SALT_AND_NONCE;
        List<String> uses = new ArrayList<>();
        for (int at : occurrences(raw, header)) {
            if (at + wanted <= raw.length) {
                uses.add(HexFormat.of().formatHex(raw, at + header.length, at + wanted));
            }
        }
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        for (String hex : List.of(HexFormat.of().formatHex(header), HexFormat.of().formatHex(header)
                .toUpperCase(Locale.ROOT))) {
            for (int at = text.indexOf(hex); at >= 0; at = text.indexOf(hex, at + 1)) {
                if (at + 2 * wanted <= text.length()) {
                    uses.add(text.substring(at + 2 * header.length, at + 2 * wanted).toLowerCase(Locale.ROOT));
                }
            }
        }
        int groups = (wanted + 2) / 3;
        byte[] start = Arrays.copyOf(header, header.length / 3 * 3);
        for (Base64.Encoder encoder : List.of(Base64.getEncoder(), Base64.getUrlEncoder())) {
            String prefix = encoder.withoutPadding().encodeToString(start);
            Base64.Decoder decoder = encoder == Base64.getEncoder() ? Base64.getDecoder() : Base64.getUrlDecoder();
            for (int at = text.indexOf(prefix); at >= 0; at = text.indexOf(prefix, at + 1)) {
                if (at + 4 * groups <= text.length()) {
                    try {
                        byte[] decoded = decoder.decode(text.substring(at, at + 4 * groups));
                        uses.add(HexFormat.of().formatHex(decoded, header.length, wanted));
                    } catch (IllegalArgumentException notBase64) {
                        // Not an envelope after all.
                    }
                }
            }
        }
        return uses;
    }

    private static List<Integer> occurrences(byte[] haystack, byte[] needle) {
        List<Integer> found = new ArrayList<>();
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            found.add(i);
        }
        return found;
    }
}
