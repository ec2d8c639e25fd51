package dev.idem.jaxrs;

import dev.idem.http.HttpIdempotency;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import java.util.Objects;

/**
 * Installs the Idempotency-Key contract in a Jakarta REST application whose filters may block
 * (Jersey, RESTEasy): an {@link IdempotencyFilter} for the configurations, tried in order, and an
 * {@link IdempotencyExceptionMapper}, so that what a handler throws reaches the engine.
 * {@code resourceConfig.register(new IdempotencyFeature(config))}.
 */
public final class IdempotencyFeature implements Feature {
    private final HttpIdempotency config;
    private final HttpIdempotency[] more;

    /**
     * The feature for {@code config}, then each of {@code more} for requests the earlier ones do not cover.
     *
     * @param config the HTTP contract's configuration
     * @param more further configurations, for other routes
     */
    public IdempotencyFeature(HttpIdempotency config, HttpIdempotency... more) {
        this.config = Objects.requireNonNull(config, "config");
        this.more = more.clone();
    }

    @Override
    public boolean configure(FeatureContext context) {
        context.register(new IdempotencyFilter(config, more));
        context.register(new IdempotencyExceptionMapper());
        return true;
    }
}
