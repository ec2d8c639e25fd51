package dev.idem.quarkus.runtime;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.quarkus.IdemConfig;
import java.util.Optional;

/**
 * One way to build the store over a client of the application, registered at build time only
 * when its store adapter and client classes are present. Wired by the extension; not for
 * applications (they produce an {@link IdempotencyStore} bean instead).
 */
public interface StoreCandidate {
    /**
     * The kind this candidate builds.
     *
     * @return the kind
     */
    IdemConfig.StoreKind kind();

    /**
     * The store, if the application has the client it needs.
     *
     * @param config the configuration
     * @return the store, or empty when the client is missing
     * @throws IllegalStateException if the client is there but a setting is wrong
     */
    Optional<IdempotencyStore> create(IdemConfig config);
}
