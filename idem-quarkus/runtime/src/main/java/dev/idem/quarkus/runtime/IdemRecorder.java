package dev.idem.quarkus.runtime;

import io.quarkus.arc.Arc;
import io.quarkus.runtime.annotations.Recorder;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the extension checks at startup. Wired by the extension; not for applications.
 */
@Recorder
public class IdemRecorder {
    /** Created by Quarkus. */
    public IdemRecorder() {
    }

    /**
     * Fails startup when an {@code @Idempotent("name")} of the application names no
     * {@code @Identifier("name") HttpIdempotency} bean, instead of answering its requests with 500.
     *
     * @param names the names the application's annotations use
     * @throws IllegalStateException naming the missing ones
     */
    public void checkConfigurations(Set<String> names) {
        IdemRest rest = Arc.container().instance(IdemRest.class).get();
        Set<String> missing = new TreeSet<>();
        for (String name : names) {
            if (!rest.resolvable(name)) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException("@Idempotent names configurations without an HttpIdempotency bean: "
                    + missing + "; produce each with @Identifier(\"<name>\")");
        }
    }
}
