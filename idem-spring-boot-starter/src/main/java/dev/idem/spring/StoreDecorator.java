package dev.idem.spring;

import dev.idem.api.store.IdempotencyStore;

/** Wraps the store the engine uses (tracing spans around round trips). */
@FunctionalInterface
interface StoreDecorator {
    IdempotencyStore decorate(IdempotencyStore store);
}
