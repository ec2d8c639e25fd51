package dev.idem.grpc.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/** SHA-256 helpers. Not API. */
public final class Digests {
    private Digests() {
    }

    /** A fresh SHA-256 digest. */
    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    }

    /** The URL-safe, unpadded Base64 SHA-256 of the UTF-8 bytes of {@code text} (43 characters). */
    public static String sha256Base64Url(String text) {
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString(sha256().digest(text.getBytes(StandardCharsets.UTF_8)));
    }
}
