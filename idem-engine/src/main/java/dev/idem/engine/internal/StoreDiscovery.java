package dev.idem.engine.internal;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** Finds the one {@link StoreProvider} on the class path; zero or several is an error naming what was found. */
public final class StoreDiscovery {
    private StoreDiscovery() {
    }

    /** Creates the store of the only provider visible to {@code loader}. */
    public static IdempotencyStore discover(ClassLoader loader, Clock clock, Map<String, String> properties) {
        List<StoreProvider> found = new ArrayList<>();
        for (StoreProvider p : ServiceLoader.load(StoreProvider.class, loader)) {
            found.add(p);
        }
        if (found.isEmpty()) {
            throw new IllegalStateException("no idem store configured: pass one with "
                    + "IdempotencyEngine.builder().store(...), or put exactly one store module "
                    + "(for example dev.idem:idem-store-memory) on the class path; no StoreProvider was found");
        }
        if (found.size() > 1) {
            throw new IllegalStateException("several idem store providers are on the class path, so none is "
                    + "chosen: " + found.stream().map(p -> p.name() + " (" + p.getClass().getName() + ")")
                            .collect(Collectors.joining(", "))
                    + "; pass the store explicitly with IdempotencyEngine.builder().store(...)");
        }
        StoreProvider provider = found.get(0);
        Map<String, String> props = Map.copyOf(properties);
        return provider.create(new StoreProvider.Context() {
            @Override
            public Clock clock() {
                return clock;
            }

            @Override
            public Map<String, String> properties() {
                return props;
            }
        });
    }
}
