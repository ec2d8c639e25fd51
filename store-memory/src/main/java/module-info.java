/** The embedded default store; found by the engine through {@code StoreProvider}. */
module dev.idem.store.memory {
    requires transitive dev.idem.api;

    exports dev.idem.store.memory;

    provides dev.idem.api.store.StoreProvider with dev.idem.store.memory.MemoryStoreProvider;
}
