package dev.idem.spring;

import dev.idem.api.store.IdempotencyStore;

/**
 * Wraps the store the auto-configured engine uses (observations or spans around round trips, the
 * transactional mode's view of its own completions). Decorators apply in their order, the first
 * innermost.
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
