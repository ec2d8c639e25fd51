package dev.idem.spring.boot;

import dev.idem.api.store.IdempotencyStore;
import java.util.Optional;

/**
 * A store the application's beans make possible (its DataSource, Redis or DynamoDB client).
 * Each backend's configuration contributes one only when its classes are on the class path,
 * so the choice among them never loads a missing class.
 */
interface StoreCandidate {
    /** Which kind this is. */
    IdemProperties.StoreKind kind();

    /** The store, or empty when the application has no (unique) client bean for it. */
    Optional<IdempotencyStore> create();
}
