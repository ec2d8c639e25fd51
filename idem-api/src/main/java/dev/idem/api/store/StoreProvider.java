package dev.idem.api.store;

import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/**
 * Creates a store when an engine is built without one: the engine finds providers with
 * {@link java.util.ServiceLoader}, and exactly one on the class path is used. Zero or
 * several is an error that names what was found, so selection is never a guess.
 *
 * <p>Implementations are registered in
 * {@code META-INF/services/dev.idem.api.store.StoreProvider} and need a public no-argument
 * constructor.
 */
public interface StoreProvider {

    /** A short name, for example {@code memory} or {@code jdbc}, used in error messages. */
    String name();

    /**
     * Creates a store.
     *
     * @throws IllegalStateException if the configuration this provider needs is missing;
     *     the message says which property to set
     */
    IdempotencyStore create(Context context);

    /** What the engine hands a provider. */
    interface Context {
        /** The engine's clock, for stores that keep time themselves. */
        Clock clock();

        /** The properties given to the engine builder (falling back to system properties). */
        Map<String, String> properties();

        /** One property, from the builder's properties or else the system properties. */
        default Optional<String> property(String name) {
            String v = properties().get(name);
            if (v == null) {
                v = System.getProperty(name);
            }
            return Optional.ofNullable(v);
        }
    }
}
