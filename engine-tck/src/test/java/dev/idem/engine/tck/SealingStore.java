package dev.idem.engine.tck;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.OutcomeUnreadableException;
import dev.idem.engine.protection.KeyProvider;
import dev.idem.engine.protection.KeyVersion;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * An engine's protection at rest done by a decorator in front of its store, for the kit's own
 * tests: the engine itself encrypts nothing, and this store seals every outcome and journal the
 * engine writes (AES-256-GCM, in the engine's envelope format 1) and opens what its claims and
 * reads return, binding each to its record (scope, operation, key, fingerprint) as the engine does.
 * An atomic step's journal, which the application saves itself through the store under test,
 * goes past it: that gap is {@link Flaw#NONE}'s one bug. Each other {@link Flaw} adds one more.
 */
final class SealingStore extends ForwardingIdempotencyStore {
    /** What is wrong with the sealing besides the atomic step's journal. */
    enum Flaw {
        /** Nothing more. */
        NONE,
        /** The associated data binds the operation, key name and fingerprint, not the scope. */
        SCOPE_NOT_BOUND,
        /** The nonce is derived from the record (and the data key fixed), so every rewrite of a record reuses both. */
        NONCE_FROM_THE_RECORD,
        /** A final failure's outcome (its code and detail) is stored as it is. */
        FAILURES_IN_CLEAR
    }

    private static final byte[] DOMAIN = "kit-seal\0".getBytes(StandardCharsets.US_ASCII);
    private static final byte OUTCOME = 'O';
    private static final byte JOURNAL = 'J';

    private final Flaw flaw;
    private final SecureRandom random = new SecureRandom();
    /** The salt of the data key new writes use: drawn once, as the engine keeps a data key for many writes. */
    private final byte[] salt = new byte[16];
    /** The fingerprint each key was last claimed with: what its outcome and journal are bound to. */
    private final Map<IdempotencyKey, byte[]> claimedWith = new ConcurrentHashMap<>();
    private volatile KeyProvider keys;

    SealingStore(IdempotencyStore store, Flaw flaw) {
        super(store);
        this.flaw = flaw;
        random.nextBytes(salt);
    }

    /** Seals from now on under {@code provider} (until then, bytes pass as they are). */
    void sealUnder(KeyProvider provider) {
        this.keys = provider;
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long token, Duration lease, Duration ttl) {
        claimedWith.put(key, fingerprint);
        ClaimResult answer = delegate().claim(key, fingerprint, token, lease, ttl);
        return new ClaimResult(answer.status(), opened(answer.record()), answer.storeTime());
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        return delegate().find(key).map(this::opened);
    }

    @Override
    public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
        boolean clear = flaw == Flaw.FAILURES_IN_CLEAR && outcome.length > 0 && outcome[0] == 'F';
        return delegate().complete(key, token, clear ? outcome : seal(OUTCOME, key, outcome), ttl);
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long token, byte[] journal) {
        return delegate().checkpoint(key, token, seal(JOURNAL, key, journal));
    }

    private StoredRecord opened(StoredRecord r) {
        return new StoredRecord(r.key(), r.state(), r.fingerprint(), r.fencingToken(), r.attempt(), r.createdAt(),
                r.leaseExpiresAt(), r.expiresAt(), open(OUTCOME, r.key(), r.fingerprint(), r.outcome()),
                open(JOURNAL, r.key(), r.fingerprint(), r.journal()));
    }

    private byte[] seal(byte part, IdempotencyKey key, byte[] plain) {
        KeyProvider provider = keys;
        byte[] fingerprint = claimedWith.get(key);
        if (provider == null || fingerprint == null) {
            return plain;
        }
        KeyVersion version = provider.current();
        byte[] id = version.id().getBytes(StandardCharsets.US_ASCII);
        byte[] nonce = new byte[12];
        if (flaw == Flaw.NONCE_FROM_THE_RECORD) {
            System.arraycopy(sha256(key.toString().getBytes(StandardCharsets.UTF_8)), 0, nonce, 0, 12);
        } else {
            random.nextBytes(nonce);
        }
        int header = 3 + id.length + 16 + 12 + 4 + 4;
        ByteBuffer b = ByteBuffer.allocate(header + plain.length + 16);
        b.put((byte) 'E').put((byte) 1).put((byte) id.length).put(id).put(salt).put(nonce).put(check(version))
                .putInt(plain.length + 16);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, dataKey(version, salt), new GCMParameterSpec(128, nonce));
            cipher.updateAAD(associatedData(part, key, fingerprint, b.array(), header));
            cipher.doFinal(plain, 0, plain.length, b.array(), header);
            return b.array();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private byte[] open(byte part, IdempotencyKey key, byte[] fingerprint, byte[] stored) {
        if (stored == null || stored.length == 0 || stored[0] != 'E') {
            return stored;
        }
        int idLength = stored[2] & 0xFF;
        String id = new String(stored, 3, idLength, StandardCharsets.US_ASCII);
        KeyProvider provider = keys;
        KeyVersion version = provider == null ? null : provider.find(id);
        if (version == null) {
            throw new OutcomeUnreadableException(key, OutcomeUnreadableException.Reason.KEY_MISSING, id,
                    "no key under id '" + id + "'", null);
        }
        int at = 3 + idLength;
        int header = at + 16 + 12 + 4 + 4;
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, dataKey(version, Arrays.copyOfRange(stored, at, at + 16)),
                    new GCMParameterSpec(128, Arrays.copyOfRange(stored, at + 16, at + 28)));
            cipher.updateAAD(associatedData(part, key, fingerprint, stored, header));
            return cipher.doFinal(stored, header, stored.length - header);
        } catch (AEADBadTagException e) {
            throw new OutcomeUnreadableException(key, OutcomeUnreadableException.Reason.TAMPERED, id,
                    "AES-GCM authentication failed", null);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private byte[] associatedData(byte part, IdempotencyKey key, byte[] fingerprint, byte[] envelope, int header) {
        byte[] scope = flaw == Flaw.SCOPE_NOT_BOUND ? new byte[0] : key.scope().getBytes(StandardCharsets.UTF_8);
        byte[] operation = key.operation().getBytes(StandardCharsets.UTF_8);
        byte[] name = key.key().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(DOMAIN.length + 1 + header + 16 + scope.length + operation.length + name.length
                        + fingerprint.length)
                .put(DOMAIN).put(part).put(envelope, 0, header)
                .putInt(scope.length).put(scope).putInt(operation.length).put(operation)
                .putInt(name.length).put(name).putInt(fingerprint.length).put(fingerprint).array();
    }

    private static SecretKeySpec dataKey(KeyVersion version, byte[] salt) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(version.secretKey());
        mac.update("kit-data-key\0".getBytes(StandardCharsets.US_ASCII));
        return new SecretKeySpec(mac.doFinal(salt), "AES");
    }

    private static byte[] check(KeyVersion version) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(version.secretKey());
            return Arrays.copyOf(mac.doFinal("kit-key-check".getBytes(StandardCharsets.US_ASCII)), 4);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
