package dev.idem.api.store;

import java.time.Clock;
import java.time.Duration;
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
 *
 * <h2>Property names</h2>
 * Every provider reads {@code idem.store.<name>.<property>}, with kebab-case property
 * names ({@code idem.store.jdbc.create-table}, {@code idem.store.redis.timeout}); the
 * Spring Boot starter binds the same names. Durations use {@link Context#duration}.
 */
public interface StoreProvider {

    /**
     * A short name, for example {@code memory} or {@code jdbc}, used in error messages.
     *
     * @return a short name, for example {@code memory} or {@code jdbc}, used in error messages
     */
    String name();

    /**
     * Creates a store.
     *
     * @param context the configuration and shared services the engine builder offers
     * @return the idempotency store
     * @throws IllegalStateException if the configuration this provider needs is missing;
     *     the message says which property to set
     */
    IdempotencyStore create(Context context);

    /** What the engine hands a provider. */
    interface Context {
        /**
         * The engine's clock, for stores that keep time themselves.
         *
         * @return the engine's clock, for stores that keep time themselves
         */
        Clock clock();

        /**
         * The properties given to the engine builder (falling back to system properties).
         *
         * @return the properties given to the engine builder (falling back to system properties)
         */
        Map<String, String> properties();

        /**
         * One property, from the builder's properties or else the system properties.
         *
         * @param name the name
         * @return one property, from the builder's properties or else the system properties
         */
        default Optional<String> property(String name) {
            String v = properties().get(name);
            if (v == null) {
                v = System.getProperty(name);
            }
            return Optional.ofNullable(v);
        }

        /**
         * One duration property: a whole number with a unit ({@code 500ms}, {@code 30s},
         * {@code 5m}, {@code 2h}, {@code 1d}) or ISO-8601 ({@code PT30S}), as Spring Boot
         * accepts them.
         *
         * @param name the name
         * @return one duration property
         * @throws IllegalStateException if the value is neither, or not positive; the message
         *     names the property and the value
         */
        default Optional<Duration> duration(String name) {
            return property(name).map(v -> parseDuration(name, v));
        }
    }

    /**
     * Parses a duration the way {@link Context#duration} does.
     *
     * @param name the name
     * @param value the value
     * @return the parsed duration, positive
     * @throws IllegalStateException if the value is neither form, or not positive
     */
    static Duration parseDuration(String name, String value) {
        String v = value.trim();
        Duration d;
        try {
            if (v.startsWith("P") || v.startsWith("p") || v.startsWith("-P")) {
                d = Duration.parse(v);
            } else {
                int split = 0;
                while (split < v.length() && Character.isDigit(v.charAt(split))) {
                    split++;
                }
                if (split == 0) {
                    throw new IllegalArgumentException("no number");
                }
                long amount = Long.parseLong(v.substring(0, split));
                switch (v.substring(split).trim().toLowerCase(java.util.Locale.ROOT)) {
                    case "ms": d = Duration.ofMillis(amount); break;
                    case "s": case "": d = Duration.ofSeconds(amount); break;
                    case "m": d = Duration.ofMinutes(amount); break;
                    case "h": d = Duration.ofHours(amount); break;
                    case "d": d = Duration.ofDays(amount); break;
                    default: throw new IllegalArgumentException("unknown unit");
                }
            }
        } catch (RuntimeException e) {
            throw new IllegalStateException(name + " must be a duration such as 500ms, 30s, 5m or PT30S but was '"
                    + value + "'", e);
        }
        if (d.isNegative() || d.isZero()) {
            throw new IllegalStateException(name + " must be positive but was '" + value + "'");
        }
        return d;
    }
}
