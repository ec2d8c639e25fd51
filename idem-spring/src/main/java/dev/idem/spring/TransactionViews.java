package dev.idem.spring;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.core.Ordered;

/**
 * Lets the engine see a completion that is written but not yet committed because it joined
 * the caller's Spring transaction. After atomic work returns, the engine reads the record to
 * check that the work completed it; that read runs on a connection of its own, which cannot
 * see the caller's open transaction. While {@link SpringTransactionalIdempotency} runs on a
 * thread, it notes here the completion it made in the transaction, and the store the engine
 * uses answers {@code find} for that key with the committed record as the transaction will
 * leave it (COMPLETED, with that outcome), and only if the committed record still carries
 * the same fencing token. Every other call goes straight to the store. Applied innermost,
 * before tracing wraps the store.
 */
public final class TransactionViews implements StoreDecorator, Ordered {
    private final ThreadLocal<Map<IdempotencyKey, Pending>> pending = new ThreadLocal<>();

    /** Created once per application, by the auto-configuration. */
    public TransactionViews() {
    }

    private record Pending(long token, byte[] outcome) {
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public IdempotencyStore decorate(IdempotencyStore store) {
        return new View(store);
    }

    void completed(IdempotencyKey key, long token, byte[] outcome) {
        Map<IdempotencyKey, Pending> m = pending.get();
        if (m == null) {
            m = new HashMap<>();
            pending.set(m);
        }
        m.put(key, new Pending(token, outcome));
    }

    void forget(IdempotencyKey key) {
        Map<IdempotencyKey, Pending> m = pending.get();
        if (m != null) {
            m.remove(key);
            if (m.isEmpty()) {
                pending.remove();
            }
        }
    }

    private final class View extends ForwardingIdempotencyStore {
        View(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        public Optional<StoredRecord> find(IdempotencyKey key) {
            Optional<StoredRecord> found = delegate().find(key);
            Map<IdempotencyKey, Pending> m = pending.get();
            Pending p = m == null ? null : m.get(key);
            if (p == null || found.isEmpty()) {
                return found;
            }
            StoredRecord r = found.get();
            if (r.state() != RecordState.IN_PROGRESS || r.fencingToken() != p.token()) {
                return found;
            }
            return Optional.of(new StoredRecord(key, RecordState.COMPLETED, r.fingerprint(), r.fencingToken(),
                    r.attempt(), r.createdAt(), null, r.expiresAt(), p.outcome(), null));
        }

        @Override
        public String toString() {
            return delegate().toString();
        }
    }
}
