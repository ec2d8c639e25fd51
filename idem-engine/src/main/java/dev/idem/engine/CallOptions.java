package dev.idem.engine;

import dev.idem.engine.internal.PointerSet;
import dev.idem.engine.protection.OutcomeFilter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Per-call overrides of the engine's defaults: record TTL, lease, what a duplicate does
 * while the key is in progress, and extra fields left out of the fingerprint. Unset values
 * fall back to the engine's. Immutable; build with {@link #builder()}.
 */
public final class CallOptions {
    private static final CallOptions DEFAULTS = new Builder().build();

    private final Duration ttl;
    private final Duration lease;
    private final InProgressPolicy inProgress;
    private final List<String> excluded;
    private final PointerSet excludedSet;
    private final OutcomeFilter outcomeFilter;

    private CallOptions(Builder b) {
        this.ttl = b.ttl;
        this.lease = b.lease;
        this.inProgress = b.inProgress;
        this.excluded = List.copyOf(b.excluded);
        this.excludedSet = PointerSet.of(excluded);
        this.outcomeFilter = b.outcomeFilter;
    }

    /**
     * A builder holding these options, to override more of them (a setter may still be called
     * once: on an option set here it fails).
     *
     * @return a builder with every option of this one set
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.ttl = ttl;
        b.lease = lease;
        b.inProgress = inProgress;
        b.excluded.addAll(excluded);
        b.outcomeFilter = outcomeFilter;
        return b;
    }

    /**
     * No overrides.
     *
     * @return options that override nothing
     */
    public static CallOptions defaults() {
        return DEFAULTS;
    }

    /**
     * A builder with no overrides set.
     *
     * @return this builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The TTL override, or null.
     *
     * @return the TTL override, or null
     */
    public Duration ttl() {
        return ttl;
    }

    /**
     * The lease override, or null.
     *
     * @return the lease override, or null
     */
    public Duration lease() {
        return lease;
    }

    /**
     * The in-progress policy override, or null.
     *
     * @return the in-progress policy override, or null
     */
    public InProgressPolicy inProgress() {
        return inProgress;
    }

    /**
     * Extra JSON Pointers excluded from the fingerprint.
     *
     * @return extra JSON Pointers excluded from the fingerprint
     */
    public List<String> excludedFromFingerprint() {
        return excluded;
    }

    PointerSet excludedSet() {
        return excludedSet;
    }

    /**
     * The outcome filter override, or null.
     *
     * @return the filter deciding what of this call's result is stored, or null for the engine's
     */
    public @Nullable OutcomeFilter outcomeFilter() {
        return outcomeFilter;
    }

    /** Validating builder; each setter may be called once. */
    public static final class Builder {
        private Duration ttl;
        private Duration lease;
        private InProgressPolicy inProgress;
        private final List<String> excluded = new ArrayList<>();
        private OutcomeFilter outcomeFilter;

        private Builder() {
        }

        /**
         * What of this call's result is stored and how a replay rebuilds it, instead of the
         * engine's {@link IdempotencyEngine.Builder#outcomeFilter}.
         *
         * @param filter the filter
         * @return this builder
         */
        public Builder outcomeFilter(OutcomeFilter filter) {
            if (this.outcomeFilter != null) {
                throw new IllegalStateException("outcomeFilter was already set to " + this.outcomeFilter);
            }
            this.outcomeFilter = Objects.requireNonNull(filter, "filter");
            return this;
        }

        /**
         * How long the completed record lives (and so how long retries replay it).
         *
         * @param ttl how long the completed record lives
         * @return this builder
         */
        public Builder ttl(Duration ttl) {
            if (this.ttl != null) {
                throw new IllegalStateException("ttl was already set to " + this.ttl);
            }
            this.ttl = IdempotencyEngine.positive("ttl", ttl);
            return this;
        }

        /**
         * How long this call's claim is protected before a duplicate may take it over.
         *
         * @param lease how long a claim holds the key
         * @return this builder
         */
        public Builder lease(Duration lease) {
            if (this.lease != null) {
                throw new IllegalStateException("lease was already set to " + this.lease);
            }
            this.lease = IdempotencyEngine.positive("lease", lease);
            return this;
        }

        /**
         * What a duplicate does while the key is held by a live lease.
         *
         * @param policy what a duplicate does while the key is in progress
         * @return this builder
         */
        public Builder inProgress(InProgressPolicy policy) {
            if (this.inProgress != null) {
                throw new IllegalStateException("inProgress was already set to " + this.inProgress);
            }
            this.inProgress = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Leaves the fields named by these RFC 6901 JSON Pointers out of the fingerprint.
         *
         * @param pointers JSON Pointers (RFC 6901) of request fields to leave out
         * @return this builder
         */
        public Builder excludeFromFingerprint(String... pointers) {
            List<String> list = List.of(pointers);
            PointerSet.of(list);
            excluded.addAll(list);
            return this;
        }

        /**
         * Builds the options.
         *
         * @return the options
         * @throws IllegalArgumentException if both lease and ttl are set and the lease is not shorter
         */
        public CallOptions build() {
            if (ttl != null && lease != null && lease.compareTo(ttl) >= 0) {
                throw new IllegalArgumentException("lease (" + lease + ") must be shorter than ttl (" + ttl + ")");
            }
            return new CallOptions(this);
        }
    }
}
