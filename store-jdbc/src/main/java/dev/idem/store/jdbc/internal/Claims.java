package dev.idem.store.jdbc.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import java.sql.SQLException;
import org.jdbi.v3.core.JdbiException;

/**
 * The claim, repeated while it races. A claim that meets a concurrent insert of the same
 * key, or is chosen as a deadlock victim, has written nothing, and its next try sees the
 * winner's row; so a few tries settle any real race, and only a storm of writers exhausts them.
 */
public final class Claims {
    private static final int TRIES = 8;

    private Claims() {
    }

    /**
     * Claims {@code key}, repeating a try that lost a race.
     *
     * @param o the dialect's operations
     * @param key the key
     * @param fp the fingerprint
     * @param token the caller's token
     * @param leaseMs the lease in ms
     * @param lifeMs the record's life, at least the lease, in ms
     * @return the result
     * @throws StoreUnavailableException if the database fails, or every try lost a race
     */
    public static ClaimResult claim(DialectOperations o, IdempotencyKey key, byte[] fp, long token, long leaseMs,
            long lifeMs) {
        for (int attempt = 1; attempt <= TRIES; attempt++) {
            try {
                ClaimResult result = o.claim(key, fp, token, leaseMs, lifeMs);
                if (result != null) {
                    return result;
                }
            } catch (JdbiException e) {
                boolean race = Failures.isDuplicateKey(e) || Failures.isTransientConflict(e);
                if (!race || attempt >= TRIES) {
                    throw Failures.unavailable("claim", e);
                }
            } catch (SQLException e) {
                throw Failures.unavailable("claim", e);
            }
        }
        throw new StoreUnavailableException("idempotency store claim of " + key
                + " kept racing with concurrent writers; try again", null, true);
    }
}
