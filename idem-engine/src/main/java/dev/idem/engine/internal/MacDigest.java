package dev.idem.engine.internal;

import dev.idem.engine.protection.KeyVersion;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;

/**
 * HMAC-SHA-256 seen as a {@link MessageDigest}, so the fingerprint's canonicalizer, which
 * writes into a digest, computes a keyed fingerprint without a second code path. One per
 * thread, kept initialized with the last secret it was given.
 */
final class MacDigest extends MessageDigest {
    private static final ThreadLocal<MacDigest[]> SPARE = ThreadLocal.withInitial(() -> new MacDigest[1]);

    private final Mac mac;
    private KeyVersion secret;

    private MacDigest() {
        super("HmacSHA256");
        try {
            this.mac = Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java platform must provide HmacSHA256", e);
        }
    }

    /**
     * The thread's digest under {@code secret}, reset, and taken out of its slot while in use
     * (a fingerprint taken inside another, from a serializer, gets a fresh one).
     */
    static MacDigest borrow(KeyVersion secret) {
        MacDigest[] slot = SPARE.get();
        MacDigest d = slot[0];
        slot[0] = null;
        if (d == null) {
            d = new MacDigest();
        }
        if (d.secret != secret) {
            d.secret = null;
            try {
                d.mac.init(secret.secretKey());
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 refused the fingerprint secret '" + secret.id() + "': "
                        + e.getClass().getSimpleName(), e);
            }
            d.secret = secret;
        } else {
            d.mac.reset();
        }
        return d;
    }

    /** Puts the digest back in its slot once its result is taken. */
    static void giveBack(MacDigest d) {
        SPARE.get()[0] = d;
    }

    @Override
    protected void engineUpdate(byte input) {
        mac.update(input);
    }

    @Override
    protected void engineUpdate(byte[] input, int offset, int len) {
        mac.update(input, offset, len);
    }

    @Override
    protected byte[] engineDigest() {
        return mac.doFinal();
    }

    @Override
    protected void engineReset() {
        mac.reset();
    }

    @Override
    protected int engineGetDigestLength() {
        return mac.getMacLength();
    }
}
