package dev.idem.quarkus.runtime;

import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import java.util.Locale;

/**
 * A store's kind as the Spring starter's health details and metric tags name it: {@code jdbc},
 * {@code redis}, {@code dynamodb}, {@code hybrid}, {@code memory}; read through decorators to the
 * store they wrap. Loads nothing optional (the health check's API is).
 */
final class StoreKinds {
    private StoreKinds() {
    }

    static String of(IdempotencyStore store) {
        IdempotencyStore s = store;
        while (s instanceof ForwardingIdempotencyStore f) {
            s = f.delegate();
        }
        String name = s.getClass().getSimpleName();
        String kind = name.endsWith("IdempotencyStore") ? name.substring(0, name.length() - 16) : name;
        return kind.isEmpty() ? "custom" : kind.toLowerCase(Locale.ROOT);
    }
}
