package dev.idem.spring.boot;

import dev.idem.api.store.IdempotencyStore;
import java.util.Locale;

/** The short kind of a store for metric tags, span attributes and the health details, read off the store bean (never a wrapper). */
public final class StoreKinds {
    private StoreKinds() {
    }

    /**
     * The kind of {@code store}: {@code JdbcIdempotencyStore} is {@code jdbc}.
     *
     * @param store the store bean
     * @return its kind, never empty
     */
    public static String of(IdempotencyStore store) {
        String name = store.getClass().getSimpleName();
        String kind = name.endsWith("IdempotencyStore") ? name.substring(0, name.length() - 16) : name;
        return kind.isEmpty() ? "custom" : kind.toLowerCase(Locale.ROOT);
    }
}
