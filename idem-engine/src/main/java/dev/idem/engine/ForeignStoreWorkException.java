package dev.idem.engine;

import dev.idem.api.IdempotencyException;
import dev.idem.api.store.IdempotencyStore;

/**
 * Transactional work bound to one store (for example {@code jdbcStore.transactional(...)}) was
 * given to an engine built on another store (say the memory store). The work would complete
 * its record in a table the engine never claimed in, so the engine refuses it before anything
 * is claimed or run. A programming error (HTTP 500): build the engine on the store whose
 * transactional mode the work uses. The message names both stores.
 */
public class ForeignStoreWorkException extends IdempotencyException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param engineStore the engine's store
     * @param workStore the store the work completes its record in
     */
    public ForeignStoreWorkException(IdempotencyStore engineStore, IdempotencyStore workStore) {
        super("transactional work of store " + workStore + " was given to an engine on store " + engineStore
                + ": the work completes the record in its own store's transaction, where this engine never"
                + " claimed it; build the engine on that store (IdempotencyEngine.builder().store(...) with the"
                + " store whose transactional(...) made the work). Nothing was claimed or run");
    }
}
