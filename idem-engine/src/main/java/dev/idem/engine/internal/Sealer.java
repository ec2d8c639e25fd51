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
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
 *   16  salt          names the data key: HMAC-SHA-256(key, "idem-data-key/v1" 0 salt)
 *   12  nonce         random per write
 *   4   key check     the first 4 bytes of HMAC-SHA-256(key, "idem-key-check/v1")
 *   u32 length        of what follows: the ciphertext and its 16-byte tag
 *   ... ciphertext, tag
 * </pre>
 * Data keys are derived from the key version and a random salt, and each is used for at most
 * {@value #WRITES_PER_DATA_KEY} writes (then a new salt is drawn), each with a random 96-bit
 * nonce: far inside the 2^32 writes a GCM key with random nonces may take, however many records
 * a key version protects. A data key stays in use across writes, so its AES key schedule is
 * computed once, not per record. The associated data is a domain tag, the part (outcome or
 * journal), the header above and the record's scope, operation, key and fingerprint, each
 * length-prefixed: an envelope copied to another record, or a journal copied into an outcome,
 * does not open. The key check tells a wrong key under the right id from altered bytes; the
 * length tells a cut-off record.
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
    /** Writes under one data key before a new salt is drawn. */
    static final long WRITES_PER_DATA_KEY = 1L << 28;
    private static final int CHECK = 4;
    private static final int TAG = 16;
    private static final byte[] DOMAIN = "idem-seal/v1\0".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHECK_LABEL = "idem-key-check/v1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DATA_KEY_LABEL = "idem-data-key/v1\0".getBytes(StandardCharsets.US_ASCII);
    private static final ThreadLocal<Crypto> CRYPTO = ThreadLocal.withInitial(Crypto::new);

    private final KeyProvider keys;
    private final boolean refuseClear;
    private final SecureRandom random = new SecureRandom();
    private final AtomicReference<DataKey> writing = new AtomicReference<>();
    private final long writesPerDataKey;

    /**
     * A sealer under {@code keys}.
     *
     * @param keys the key provider, or null for none
     * @param refuseClear whether a record that is not encrypted is refused rather than read
     */
    public Sealer(KeyProvider keys, boolean refuseClear) {
        this(keys, refuseClear, WRITES_PER_DATA_KEY);
    }

    /** A sealer that draws a new data key every {@code writesPerDataKey} writes (tests). */
    Sealer(KeyProvider keys, boolean refuseClear, long writesPerDataKey) {
        this.keys = keys;
        this.refuseClear = refuseClear;
        this.writesPerDataKey = writesPerDataKey;
    }

    /** Whether writes are encrypted. */
    public boolean encrypts() {
        return keys != null;
    }

    /** The most bytes sealing adds to what it is given. */
    public static int maxOverhead() {
        return 2 + 1 + KeyVersion.MAX_ID_LENGTH + SALT + NONCE + CHECK + 4 + TAG;
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
        DataKey dataKey = dataKeyFor(version);
        byte[] id = version.id().getBytes(StandardCharsets.US_ASCII);
        int header = 3 + id.length + SALT + NONCE + CHECK + 4;
        int sealedLength = plain.length + TAG;
        byte[] out = new byte[header + sealedLength];
        ByteBuffer b = ByteBuffer.wrap(out);
        b.put(MAGIC).put(VERSION).put((byte) id.length).put(id).put(dataKey.salt);
        byte[] nonce = new byte[NONCE];
        random.nextBytes(nonce);
        b.put(nonce).put(dataKey.check).putInt(sealedLength);
        Crypto c = CRYPTO.get();
        try {
            Cipher cipher = c.cipher(Cipher.ENCRYPT_MODE, dataKey, nonce);
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
     * The data key writes use under {@code version}: the current one, or a new one with a fresh
     * salt once the version changed (rotation) or the current one has taken its share of writes.
     */
    private DataKey dataKeyFor(KeyVersion version) {
        DataKey current = writing.get();
        while (current == null || !sameKey(current.version, version)
                || current.writes.incrementAndGet() > writesPerDataKey) {
            byte[] salt = new byte[SALT];
            random.nextBytes(salt);
            DataKey fresh = DataKey.derive(version, salt);
            fresh.writes.incrementAndGet();
            if (writing.compareAndSet(current, fresh)) {
                return fresh;
            }
            current = writing.get();
        }
        return current;
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
                        + " refuses unencrypted records (IdempotencyEngineBuilder.refuseUnencryptedRecords)", null);
            }
            return stored;
        }
        if (stored.length < 3 || stored.length < 3 + (stored[2] & 0xFF) + SALT + NONCE + CHECK + 4) {
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
        int header = at + SALT + NONCE + CHECK + 4;
        if (keys == null) {
            throw unreadable(part, key, Reason.KEY_MISSING, id, "it is encrypted under key id '" + id
                    + "', and this engine has no encryption keys (IdempotencyEngineBuilder.encryptOutcomes)", null);
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
            DataKey dataKey = c.dataKey(version, stored, at);
            if (!MessageDigest.isEqual(dataKey.check, Arrays.copyOfRange(stored, at + SALT + NONCE,
                    at + SALT + NONCE + CHECK))) {
                throw unreadable(part, key, Reason.WRONG_KEY, id, "the key the provider has under id '" + id
                        + "' is not the key it was encrypted with", null);
            }
            Cipher cipher = c.cipher(Cipher.DECRYPT_MODE, dataKey, Arrays.copyOfRange(stored, at + SALT,
                    at + SALT + NONCE));
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

    /**
     * Whether two key versions are the same key: the same instance, or (for a provider that
     * makes a new one per call) the same id and bytes.
     */
    private static boolean sameKey(KeyVersion a, KeyVersion b) {
        return a == b || (a.id().equals(b.id()) && a.secretKey().equals(b.secretKey()));
    }

    private static String readId(byte[] stored) {
        return new String(stored, 3, stored[2] & 0xFF, StandardCharsets.US_ASCII);
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

    /**
     * One data key: the key version it is derived from, its salt, the AES key and the version's
     * key check. Immutable but for the count of writes made under it.
     */
    private static final class DataKey {
        final KeyVersion version;
        final byte[] salt;
        final SecretKeySpec key;
        final byte[] check;
        final AtomicLong writes = new AtomicLong();

        private DataKey(KeyVersion version, byte[] salt, SecretKeySpec key, byte[] check) {
            this.version = version;
            this.salt = salt;
            this.key = key;
            this.check = check;
        }

        static DataKey derive(KeyVersion version, byte[] salt) {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(version.secretKey());
                return derive(mac, version, salt);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 refused key '" + version.id() + "': "
                        + e.getClass().getSimpleName(), e);
            }
        }

        static DataKey derive(Mac mac, KeyVersion version, byte[] salt) {
            mac.update(CHECK_LABEL);
            byte[] check = Arrays.copyOf(mac.doFinal(), CHECK);
            mac.update(DATA_KEY_LABEL);
            mac.update(salt);
            return new DataKey(version, salt, new SecretKeySpec(mac.doFinal(), "AES"), check);
        }
    }

    /**
     * A thread's MAC and ciphers. Each cipher stays initialized with one data key (the JDK then
     * skips the AES key schedule when it is initialized again with the same key), so the data
     * keys a thread meets most often cost one key schedule each, not one per record.
     */
    private static final class Crypto {
        private static final int SLOTS = 8;
        private Mac mac;
        private KeyVersion macKey;
        private final DataKey[] keys = new DataKey[SLOTS];
        private final Cipher[] ciphers = new Cipher[SLOTS];
        private int next;

        /** The data key {@code stored}'s salt (at {@code at}) names under {@code version}. */
        DataKey dataKey(KeyVersion version, byte[] stored, int at) throws GeneralSecurityException {
            for (DataKey k : keys) {
                if (k != null && sameKey(k.version, version) && Arrays.equals(k.salt, 0, SALT, stored, at, at + SALT)) {
                    return k;
                }
            }
            if (mac == null) {
                mac = Mac.getInstance("HmacSHA256");
            }
            if (macKey == null || !sameKey(macKey, version)) {
                macKey = null;
                mac.init(version.secretKey());
                macKey = version;
            } else {
                mac.reset();
            }
            return DataKey.derive(mac, version, Arrays.copyOfRange(stored, at, at + SALT));
        }

        Cipher cipher(int mode, DataKey dataKey, byte[] nonce) throws GeneralSecurityException {
            int slot = -1;
            for (int i = 0; i < SLOTS; i++) {
                if (keys[i] == dataKey) {
                    slot = i;
                    break;
                }
            }
            if (slot < 0) {
                slot = next;
                next = (next + 1) % SLOTS;
                keys[slot] = dataKey;
                if (ciphers[slot] == null) {
                    ciphers[slot] = Cipher.getInstance("AES/GCM/NoPadding");
                }
            }
            Cipher cipher = ciphers[slot];
            cipher.init(mode, dataKey.key, new GCMParameterSpec(TAG * 8, nonce));
            return cipher;
        }

        void reset() {
            mac = null;
            macKey = null;
            Arrays.fill(keys, null);
            Arrays.fill(ciphers, null);
        }
    }
}
