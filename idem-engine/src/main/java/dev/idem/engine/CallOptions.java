package dev.idem.engine;

import dev.idem.api.time.Deadline;
import dev.idem.engine.internal.json.PointerSet;
import dev.idem.engine.protection.OutcomeFilter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Per-call overrides of the engine's defaults: record TTL, lease, what a duplicate does
 * while the key is in progress, extra fields left out of the fingerprint, the caller's
 * {@link Deadline}, and what of the result is stored ({@link OutcomeFilter}). Unset values fall
 * back to the engine's. Immutable; build with {@link #builder()}.
 *
 * <p>A deadline is the time the caller still waits for the answer (what an HTTP adapter reads from
 * {@code X-Request-Timeout}); it means the same to blocking and asynchronous calls:
 * <ul>
 *   <li>passed before the claim: {@link dev.idem.api.DeadlineExceededException} (504), nothing is
 *       stored; passed while the claim was made: the claim is given back and the same exception
 *       follows; in both cases the work does not run;</li>
 *   <li>a duplicate that waits for an in-progress key ({@link InProgressPolicy#waitUpTo}) waits at
 *       most until the deadline, then answers {@link dev.idem.api.RequestInProgressException} (409
 *       with its retry-after hint);</li>
 *   <li>the work sees it ({@link ExecutionContext#deadline()}), and blocking work finds it bound to
 *       its thread ({@link Deadline#current()}) for idem-client; once the work has started, the
 *       deadline interrupts nothing: the work runs to its end and its outcome is stored (a
 *       completion is never cut short), so a retry replays it;</li>
 *   <li>it may shorten the claim's lease, so a dead worker's claim blocks the key for less time,
 *       while a live worker keeps its key through a heartbeat (see
 *       {@link IdempotencyEngineBuilder#minBudgetLease}).</li>
 * </ul>
 * A deadline is fixed when it is made, so options that carry one belong to one call:
 * {@link #withDeadline(Deadline)} adds it to options shared by many.
 */
public final class CallOptions {
    private static final CallOptions DEFAULTS = new Builder().build();

    private final Duration ttl;
    private final Duration lease;
    private final InProgressPolicy inProgress;
    private final List<String> excluded;
    private final PointerSet excludedSet;
    private final Deadline deadline;
    private final OutcomeFilter outcomeFilter;

    private CallOptions(Builder b) {
        this.ttl = b.ttl;
        this.lease = b.lease;
        this.inProgress = b.inProgress;
        this.excluded = List.copyOf(b.excluded);
        this.excludedSet = PointerSet.of(excluded);
        this.deadline = b.deadline;
        this.outcomeFilter = b.outcomeFilter;
    }

    private CallOptions(CallOptions base, Deadline deadline) {
        this.ttl = base.ttl;
        this.lease = base.lease;
        this.inProgress = base.inProgress;
        this.excluded = base.excluded;
        this.excludedSet = base.excludedSet;
        this.deadline = deadline;
        this.outcomeFilter = base.outcomeFilter;
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
        b.deadline = deadline;
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
     * The caller's deadline, or null for none (the call is bounded by the engine's settings only).
     *
     * @return the deadline, or null
     */
    public @Nullable Deadline deadline() {
        return deadline;
    }

    /**
     * These options with {@code deadline} in place of their own (for one call, from options shared
     * by many).
     *
     * @param deadline the caller's deadline
     * @return a copy with the deadline
     */
    public CallOptions withDeadline(Deadline deadline) {
        return new CallOptions(this, Objects.requireNonNull(deadline, "deadline"));
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
        private Deadline deadline;
        private OutcomeFilter outcomeFilter;

        private Builder() {
        }

        // The engine's builder delegates its call defaults here, so one message serves both.
        private static void once(String name, @Nullable Object current) {
            if (current != null) {
                throw new IllegalStateException(name + " was already set");
            }
        }

        /**
         * What of this call's result is stored and how a replay rebuilds it, instead of the
         * engine's {@link IdempotencyEngineBuilder#outcomeFilter}.
         *
         * @param filter the filter
         * @return this builder
         */
        public Builder outcomeFilter(OutcomeFilter filter) {
            once("outcomeFilter", this.outcomeFilter);
            this.outcomeFilter = Objects.requireNonNull(filter, "outcomeFilter");
            return this;
        }

        /**
         * How long the completed record lives (and so how long retries replay it).
         *
         * @param ttl how long the completed record lives
         * @return this builder
         */
        public Builder ttl(Duration ttl) {
            once("ttl", this.ttl);
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
            once("lease", this.lease);
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
            once("inProgress", this.inProgress);
            this.inProgress = Objects.requireNonNull(policy, "inProgress");
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
         * The time the caller still waits for the answer (see the class comment for what it
         * changes): {@code deadline(Deadline.after(Duration.ofSeconds(2), engine.ticker()))}.
         *
         * @param deadline the caller's deadline
         * @return this builder
         */
        public Builder deadline(Deadline deadline) {
            once("deadline", this.deadline);
            this.deadline = Objects.requireNonNull(deadline, "deadline");
            return this;
        }

        /**
         * Builds the options.
         *
         * @return the options
         * @throws IllegalArgumentException if both lease and ttl are set and the lease is not shorter
         */
        public CallOptions build() {
            if (ttl != null && lease != null) {
                checkConsistent(lease, ttl, null);
            }
            return new CallOptions(this);
        }
    }

    /**
     * The one check of settings that must agree, wherever they meet: an engine's defaults, a
     * call's options, and a call's options over the engine's.
     */
    static void checkConsistent(Duration lease, Duration ttl, @Nullable InProgressPolicy inProgress) {
        if (lease.compareTo(ttl) >= 0) {
            throw new IllegalArgumentException("lease (" + lease + ") must be shorter than ttl (" + ttl + ")");
        }
        if (inProgress != null && inProgress.waits() && inProgress.maxWait().compareTo(ttl) > 0) {
            throw new IllegalArgumentException(
                    "inProgress wait (" + inProgress.maxWait() + ") must not exceed ttl (" + ttl + ")");
        }
    }
}
