package dev.idem.quarkus;

import dev.idem.api.store.IdempotencyStore;

/**
 * Wraps the store the extension's engine uses: observations or spans around round trips, fault
 * injection in tests. Produce one as a CDI bean; decorators apply in priority order, the first
 * innermost. The {@link IdempotencyStore} bean itself stays undecorated.
 */
@FunctionalInterface
public interface StoreDecorator {
    /**
     * Wraps {@code store}.
     *
     * @param store the store, possibly already wrapped
     * @return the wrapping store
     */
    IdempotencyStore decorate(IdempotencyStore store);
}
