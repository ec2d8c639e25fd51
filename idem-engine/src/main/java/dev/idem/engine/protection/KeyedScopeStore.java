package dev.idem.engine.protection;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import javax.crypto.Mac;

/**
 * A store decorator that keeps scopes keyed: every record is stored under
 * {@code hmac:<secret id>:<HMAC-SHA-256 of the scope>} instead of its scope, for stores that must
 * not hold who the callers are (a scope is usually a user, a tenant or a certificate's subject).
 * Whoever reads the store, or a Redis key name, sees the secret's id and a MAC: no name, and no
 * way to test a guessed name without the secret. The engine and the application see the scope
 * as it is (records read back carry the caller's own key), so nothing else changes:
 *
 * <pre>{@code
 * IdempotencyStore store = KeyedScopeStore.over(jdbcStore, KeyVersion.fromBase64("scope-1", secret));
 * IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
 * }</pre>
 *
 * <p>What stays in clear: the operation (for the HTTP adapters, the method and path, which may
 * carry an id), the client's key, the timestamps and states, and the fingerprint and outcome
 * unless {@code keyedFingerprints} and {@code encryptOutcomes} protect them.
 *
 * <p>The secret addresses the records, so it cannot be rotated the way outcome keys and
 * fingerprint secrets are: a record stored under one secret is not found under another. A new
 * secret (or turning keyed scopes on, or off) starts an empty key space; a retry of a key claimed
 * before the switch runs its work again. Switch only where that is acceptable (while no key is
 * pending, or when the work's downstream deduplicates), and keep the secret as long as the store
 * keeps records. Two scopes share a record only if their MACs collide (never, in practice).
 *
 * <p>Work that completes its record in its own transaction (store-jdbc's
 * {@code store.transactional(...)}, {@code completeWithin}) writes to the key it is given, the
 * scope in clear, which this store never holds: an engine on this store refuses store-bound
 * transactional work ({@code ForeignStoreWorkException}, before anything is claimed), and the
 * transactional mode is not available with keyed scopes.
 *
 * <p>The wrapped store's non-blocking form is kept, keyed the same way. Thread-safe.
 */
public final class KeyedScopeStore extends ForwardingIdempotencyStore {
    /** How every stored scope begins. */
    public static final String PREFIX = "hmac:";
    private static final byte[] DOMAIN = "idem-scope/v1\0".getBytes(StandardCharsets.US_ASCII);

    private final KeyVersion secret;
    private final String prefix;
    private final ThreadLocal<Mac> macs;

    private KeyedScopeStore(IdempotencyStore store, KeyVersion secret) {
        super(store);
        this.secret = Objects.requireNonNull(secret, "secret");
        this.prefix = PREFIX + secret.id() + ":";
        this.macs = ThreadLocal.withInitial(this::newMac);
        newMac();
    }

    /**
     * {@code store} with its scopes keyed under {@code secret}.
     *
     * @param store the store the records live in
     * @param secret the scope secret (32 random bytes recommended; not the outcome or fingerprint secret)
     * @return the keyed view of {@code store}
     */
    public static KeyedScopeStore over(IdempotencyStore store, KeyVersion secret) {
        return new KeyedScopeStore(store, secret);
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(secret.secretKey());
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 refused the scope secret '" + secret.id() + "': "
                    + e.getClass().getSimpleName(), e);
        }
    }

    /**
     * The key as this store keeps it: the scope replaced by {@value #PREFIX}, the secret's id and
     * the URL-safe, unpadded Base64 HMAC-SHA-256 of the scope; operation and client key as they are.
     *
     * @param key the caller's key
     * @return the stored key
     */
    public IdempotencyKey stored(IdempotencyKey key) {
        Mac mac = macs.get();
        mac.update(DOMAIN);
        byte[] tag = mac.doFinal(key.scope().getBytes(StandardCharsets.UTF_8));
        return IdempotencyKey.of(prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(tag),
                key.operation(), key.key());
    }

    /** {@code r} as the caller knows it: under the caller's own key. */
    private static StoredRecord asCallers(IdempotencyKey key, StoredRecord r) {
        return new StoredRecord(key, r.state(), r.fingerprint(), r.fencingToken(), r.attempt(), r.createdAt(),
                r.leaseExpiresAt(), r.expiresAt(), r.outcome(), r.journal());
    }

    private static ClaimResult asCallers(IdempotencyKey key, ClaimResult r) {
        return new ClaimResult(r.status(), asCallers(key, r.record()), r.storeTime());
    }

    @Override
    public ClaimResult claim(IdempotencyKey key, byte[] fingerprint, long fencingToken, Duration lease,
            Duration ttl) {
        return asCallers(key, delegate().claim(stored(key), fingerprint, fencingToken, lease, ttl));
    }

    @Override
    public boolean complete(IdempotencyKey key, long fencingToken, byte[] outcome, Duration ttl) {
        return delegate().complete(stored(key), fencingToken, outcome, ttl);
    }

    @Override
    public boolean release(IdempotencyKey key, long fencingToken) {
        return delegate().release(stored(key), fencingToken);
    }

    @Override
    public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
        return delegate().checkpoint(stored(key), fencingToken, journal);
    }

    @Override
    public Optional<Instant> extendLease(IdempotencyKey key, long fencingToken, Duration lease) {
        return delegate().extendLease(stored(key), fencingToken, lease);
    }

    @Override
    public Optional<StoredRecord> find(IdempotencyKey key) {
        return delegate().find(stored(key)).map(r -> asCallers(key, r));
    }

    /** The wrapped store's form, keyed the same way. */
    @Override
    public Optional<NonBlockingStore> nonBlocking() {
        return delegate().nonBlocking().map(Keyed::new);
    }

    /**
     * Only this store itself: work bound to the wrapped store would complete the record under
     * the scope in clear, which is not where this store keeps it.
     */
    @Override
    public boolean isBackedBy(IdempotencyStore store) {
        return this == store;
    }

    @Override
    public String toString() {
        return "KeyedScopeStore[" + secret.id() + "](" + delegate() + ")";
    }

    private final class Keyed implements NonBlockingStore {
        private final NonBlockingStore form;

        Keyed(NonBlockingStore form) {
            this.form = form;
        }

        @Override
        public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                Duration lease, Duration ttl) {
            return form.claim(stored(key), fingerprint, fencingToken, lease, ttl).thenApply(r -> asCallers(key, r));
        }

        @Override
        public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome,
                Duration ttl) {
            return form.complete(stored(key), fencingToken, outcome, ttl);
        }

        @Override
        public CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken) {
            return form.release(stored(key), fencingToken);
        }

        @Override
        public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            return form.checkpoint(stored(key), fencingToken, journal);
        }

        @Override
        public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken,
                Duration lease) {
            return form.extendLease(stored(key), fencingToken, lease);
        }

        @Override
        public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
            return form.find(stored(key)).thenApply(found -> found.map(r -> asCallers(key, r)));
        }

        @Override
        public int maxCallsInFlight() {
            return form.maxCallsInFlight();
        }
    }
}
