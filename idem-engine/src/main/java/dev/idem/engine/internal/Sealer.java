package dev.idem.engine.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.OutcomeUnreadableException;
import dev.idem.engine.OutcomeUnreadableException.Reason;
import dev.idem.engine.protection.KeyProvider;
import dev.idem.engine.protection.KeyVersion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts stored outcomes and step journals with AES-256-GCM (the JDK's), each bound to its
 * record, and reads them back. With no {@link KeyProvider} it stores bytes as they are, and
 * refuses to read an encrypted record ({@link Reason#KEY_MISSING}, naming its key id).
 *
 * <h2>Format, version 1</h2>
 * <pre>
 *   'E' 0x01          magic and version (outcomes start with S, F or U and journals with I,
 *                     so an envelope is never mistaken for either)
 *   u8  n             length of the key id
 *   n   key id        ASCII, the {@link KeyVersion#id()} it was written under
 *   16  salt          random per write
 *   4   key check     the first 4 bytes of HMAC-SHA-256(key, "idem-key-check/v1")
 *   u32 length        of what follows: the ciphertext and its 16-byte tag
 *   ... ciphertext, tag
 * </pre>
 * Each write derives its own AES-256 key, HMAC-SHA-256(key, "idem-data-key/v1" 0 salt), and
 * uses the first 12 bytes of the salt as the GCM nonce: a key version can protect any number
 * of records without the 2^32-message bound a single GCM key with random nonces has. The
 * associated data is a domain tag, the part (outcome or journal), the header above and the
 * record's scope, operation, key and fingerprint, each length-prefixed: an envelope copied to
 * another record, or a journal copied into an outcome, does not open. The key check tells a
 * wrong key under the right id from altered bytes; the length tells a cut-off record.
 */
public final class Sealer {
    /** What is sealed: part of the associated data, so the two never stand in for each other. */
    public enum Part {
        /** A stored outcome. */
        OUTCOME('O'),
        /** A step journal. */
        JOURNAL('J');

        private final byte tag;

        Part(char tag) {
            this.tag = (byte) tag;
        }
    }

    /** No encryption: bytes are stored and read as they are. */
    public static final Sealer NONE = new Sealer(null, false);

    private static final byte MAGIC = 'E';
    private static final byte VERSION = 1;
    private static final int SALT = 16;
    private static final int NONCE = 12;
    private static final int CHECK = 4;
    private static final int TAG = 16;
    private static final byte[] DOMAIN = "idem-seal/v1\0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHECK_LABEL = "idem-key-check/v1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DATA_KEY_LABEL = "idem-data-key/v1\0".getBytes(StandardCharsets.US_ASCII);
    private static final ThreadLocal<Crypto> CRYPTO = ThreadLocal.withInitial(Crypto::new);

    private final KeyProvider keys;
    private final boolean refuseClear;
    private final SecureRandom random = new SecureRandom();

    /**
     * A sealer under {@code keys}.
     *
     * @param keys the key provider, or null for none
     * @param refuseClear whether a record that is not encrypted is refused rather than read
     */
    public Sealer(KeyProvider keys, boolean refuseClear) {
        this.keys = keys;
        this.refuseClear = refuseClear;
    }

    /** Whether writes are encrypted. */
    public boolean encrypts() {
        return keys != null;
    }

    /** The most bytes sealing adds to what it is given. */
    public static int maxOverhead() {
        return 2 + 1 + KeyVersion.MAX_ID_LENGTH + SALT + CHECK + 4 + TAG;
    }

    /**
     * Seals {@code plain} for the record of {@code key} with {@code fingerprint}, under the
     * provider's current key; returns {@code plain} itself when encryption is off.
     *
     * @throws RuntimeException whatever the key provider throws (its message is the provider's)
     */
    public byte[] seal(Part part, IdempotencyKey key, byte[] fingerprint, byte[] plain) {
        if (keys == null) {
            return plain;
        }
        KeyVersion version = keys.current();
        if (version == null) {
            throw new IllegalStateException("the key provider " + keys.getClass().getName()
                    + " returned no current key");
        }
        byte[] id = version.id().getBytes(StandardCharsets.US_ASCII);
        int header = 3 + id.length + SALT + CHECK + 4;
        int sealedLength = plain.length + TAG;
        byte[] out = new byte[header + sealedLength];
        ByteBuffer b = ByteBuffer.wrap(out);
        b.put(MAGIC).put(VERSION).put((byte) id.length).put(id);
        byte[] salt = new byte[SALT];
        random.nextBytes(salt);
        b.put(salt);
        Crypto c = CRYPTO.get();
        try {
            Mac mac = c.mac(version);
            mac.update(CHECK_LABEL);
            b.put(mac.doFinal(), 0, CHECK);
            b.putInt(sealedLength);
            Cipher cipher = c.cipher(Cipher.ENCRYPT_MODE, dataKey(mac, salt), salt);
            cipher.updateAAD(associatedData(part, key, fingerprint, out, header));
            int written = cipher.doFinal(plain, 0, plain.length, out, header);
            if (written != sealedLength) {
                throw new IllegalStateException("AES-GCM wrote " + written + " bytes, expected " + sealedLength);
            }
            return out;
        } catch (GeneralSecurityException e) {
            c.reset();
            throw new IllegalStateException("AES-GCM failed while encrypting under key '" + version.id() + "': "
                    + e.getClass().getSimpleName(), e);
        }
    }

    /**
     * Reads what {@link #seal} stored for the same record; bytes that are not an envelope are
     * returned as they are (records written before encryption was turned on), unless this
     * sealer refuses them.
     *
     * @throws OutcomeUnreadableException if the envelope cannot be opened
     */
    public byte[] open(Part part, IdempotencyKey key, byte[] fingerprint, byte[] stored) {
        if (stored.length == 0 || stored[0] != MAGIC) {
            if (refuseClear) {
                throw unreadable(part, key, Reason.NOT_ENCRYPTED, null, "it is not encrypted, and this engine"
                        + " refuses unencrypted records (IdempotencyEngine.Builder.refuseUnencryptedRecords)", null);
            }
            return stored;
        }
        if (stored.length < 3 || stored.length < 3 + (stored[2] & 0xFF) + SALT + CHECK + 4) {
            String id = stored.length >= 3 && stored.length >= 3 + (stored[2] & 0xFF)
                    ? readId(stored) : null;
            throw unreadable(part, key, Reason.TRUNCATED, id, "its encrypted envelope is cut short, at "
                    + stored.length + " bytes", null);
        }
        if (stored[1] != VERSION) {
            throw unreadable(part, key, Reason.TAMPERED, null, "its encrypted envelope has format version "
                    + (stored[1] & 0xFF) + "; this engine reads version " + VERSION, null);
        }
        String id = readId(stored);
        int at = 3 + (stored[2] & 0xFF);
        int header = at + SALT + CHECK + 4;
        if (keys == null) {
            throw unreadable(part, key, Reason.KEY_MISSING, id, "it is encrypted under key id '" + id
                    + "', and this engine has no encryption keys (IdempotencyEngine.Builder.encryptOutcomes)", null);
        }
        KeyVersion version;
        try {
            version = keys.find(id);
        } catch (RuntimeException e) {
            throw unreadable(part, key, Reason.KEY_PROVIDER_FAILED, id, "the key provider failed to give key id '"
                    + id + "': " + e.getClass().getName(), e);
        }
        if (version == null) {
            throw unreadable(part, key, Reason.KEY_MISSING, id, "it is encrypted under key id '" + id
                    + "', which the key provider does not have", null);
        }
        int sealedLength = ByteBuffer.wrap(stored, header - 4, 4).getInt();
        int actual = stored.length - header;
        if (sealedLength < TAG || actual < sealedLength) {
            throw unreadable(part, key, sealedLength < TAG ? Reason.TAMPERED : Reason.TRUNCATED, id,
                    "its encrypted envelope holds " + actual + " of its " + sealedLength + " bytes", null);
        }
        if (actual > sealedLength) {
            throw unreadable(part, key, Reason.TAMPERED, id, "its encrypted envelope has " + (actual - sealedLength)
                    + " bytes past its end", null);
        }
        Crypto c = CRYPTO.get();
        try {
            Mac mac = c.mac(version);
            mac.update(CHECK_LABEL);
            byte[] check = mac.doFinal();
            if (!MessageDigest.isEqual(Arrays.copyOf(check, CHECK), Arrays.copyOfRange(stored, at + SALT,
                    at + SALT + CHECK))) {
                throw unreadable(part, key, Reason.WRONG_KEY, id, "the key the provider has under id '" + id
                        + "' is not the key it was encrypted with", null);
            }
            byte[] salt = Arrays.copyOfRange(stored, at, at + SALT);
            Cipher cipher = c.cipher(Cipher.DECRYPT_MODE, dataKey(mac, salt), salt);
            cipher.updateAAD(associatedData(part, key, fingerprint, stored, header));
            return cipher.doFinal(stored, header, sealedLength);
        } catch (AEADBadTagException e) {
            throw unreadable(part, key, Reason.TAMPERED, id, "its ciphertext, or the record it is bound to (scope,"
                    + " operation, key, fingerprint), was altered: AES-GCM authentication failed under key id '"
                    + id + "'", null);
        } catch (GeneralSecurityException e) {
            c.reset();
            throw unreadable(part, key, Reason.KEY_PROVIDER_FAILED, id, "AES-GCM failed under key id '" + id + "': "
                    + e.getClass().getSimpleName(), e);
        }
    }

    /** Whether {@code stored} is an envelope. */
    public static boolean isSealed(byte[] stored) {
        return stored != null && stored.length > 0 && stored[0] == MAGIC;
    }

    /**
     * The key id an envelope names, or null if {@code stored} is not an envelope.
     *
     * @param stored the stored bytes
     * @return the key id, or null
     */
    public static String keyIdOf(byte[] stored) {
        if (!isSealed(stored) || stored.length < 3 || stored.length < 3 + (stored[2] & 0xFF)) {
            return null;
        }
        return readId(stored);
    }

    private static String readId(byte[] stored) {
        return new String(stored, 3, stored[2] & 0xFF, StandardCharsets.US_ASCII);
    }

    private static SecretKeySpec dataKey(Mac mac, byte[] salt) {
        mac.update(DATA_KEY_LABEL);
        mac.update(salt);
        return new SecretKeySpec(mac.doFinal(), "AES");
    }

    private static byte[] associatedData(Part part, IdempotencyKey key, byte[] fingerprint, byte[] envelope,
            int header) {
        byte[] scope = key.scope().getBytes(StandardCharsets.UTF_8);
        byte[] operation = key.operation().getBytes(StandardCharsets.UTF_8);
        byte[] token = key.key().getBytes(StandardCharsets.US_ASCII);
        ByteBuffer ad = ByteBuffer.allocate(DOMAIN.length + 1 + header + 16 + scope.length + operation.length
                + token.length + fingerprint.length);
        ad.put(DOMAIN).put(part.tag).put(envelope, 0, header);
        ad.putInt(scope.length).put(scope);
        ad.putInt(operation.length).put(operation);
        ad.putInt(token.length).put(token);
        ad.putInt(fingerprint.length).put(fingerprint);
        return ad.array();
    }

    private static OutcomeUnreadableException unreadable(Part part, IdempotencyKey key, Reason reason, String keyId,
            String why, Throwable cause) {
        String what = part == Part.OUTCOME ? "its stored outcome" : "its step journal";
        return new OutcomeUnreadableException(key, reason, keyId, what + " cannot be read: " + why, cause);
    }

    /** A thread's cipher and MAC, created once (a provider lookup per call is slow). */
    private static final class Crypto {
        private Cipher cipher;
        private Mac mac;
        private KeyVersion macKey;

        Mac mac(KeyVersion version) throws GeneralSecurityException {
            if (mac == null) {
                mac = Mac.getInstance("HmacSHA256");
            }
            if (macKey != version) {
                // Initializing hashes the key's pads: skipped while the same key version is used.
                macKey = null;
                mac.init(version.secretKey());
                macKey = version;
            } else {
                mac.reset();
            }
            return mac;
        }

        Cipher cipher(int mode, SecretKeySpec key, byte[] salt) throws GeneralSecurityException {
            if (cipher == null) {
                cipher = Cipher.getInstance("AES/GCM/NoPadding");
            }
            cipher.init(mode, key, new GCMParameterSpec(TAG * 8, salt, 0, NONCE));
            return cipher;
        }

        void reset() {
            cipher = null;
            mac = null;
            macKey = null;
        }
    }
}
