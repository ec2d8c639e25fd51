package dev.idem.client;

import dev.idem.client.internal.RetrySession;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * Runs any operation (gRPC call, queue publish, database write) under a {@link RetryPolicy} and a
 * shared {@link RetryBudget}, with one idempotency key per logical call. Immutable and thread-safe;
 * share one instance (and so one budget) per downstream service.
 *
 * <p>Outcomes: a result the classifier accepts is returned; a result still retryable when retrying
 * stops is returned as well; an exception that is not retried, or the last one when retrying stops,
 * is thrown unchanged, with the exceptions of earlier attempts attached as suppressed. An {@link
 * InterruptedException} (from the operation or while waiting) stops the loop at once and is thrown.
 */
public final class Retrier {

    private final RetryPolicy policy;
    private final RetryBudget budget;
    private final RetryListener listener;
    private final IdempotencyKeyGenerator keyGenerator;

    private Retrier(Builder b) {
        this.policy = b.policy;
        this.budget =
                b.budget != null ? b.budget : RetryBudget.builder().ticker(b.policy.ticker()).build();
        this.listener = b.listener;
        this.keyGenerator = b.keyGenerator;
    }

    /**
     * Returns a builder: default policy, a fresh default budget, no listener, UUIDv7 keys.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Runs {@code action}, retrying transient failures ({@link RetryClassifier#transientFailures()}).
     * For operations that need no key or get it some other way.
     *
     * @param <T> the result type
     * @param action the action
     * @return the result
     * @throws Exception whatever the code under test throws
     */
    public <T> T call(Callable<T> action) throws Exception {
        return call(action, RetryClassifier.transientFailures());
    }

    /**
     * Runs {@code action}, retrying what {@code classifier} calls retryable.
     *
     * @param <T> the result type
     * @param action the action
     * @param classifier the classifier
     * @return the result
     * @throws Exception whatever the code under test throws
     */
    public <T> T call(Callable<T> action, RetryClassifier<? super T> classifier) throws Exception {
        Objects.requireNonNull(action, "action must not be null");
        return execute(attempt -> action.call(), classifier).value();
    }

    /**
     * Runs {@code action} with a fresh key, retrying transient failures.
     *
     * @param <T> the result type
     * @param action the action
     * @return the retry result
     * @throws Exception whatever the code under test throws
     */
    public <T> RetryResult<T> execute(KeyedCallable<T> action) throws Exception {
        return execute(action, RetryClassifier.transientFailures());
    }

    /**
     * Runs {@code action} with a fresh key, retrying what {@code classifier} calls retryable.
     *
     * @param <T> the result type
     * @param action the action
     * @param classifier the classifier
     * @return the retry result
     * @throws Exception whatever the code under test throws
     */
    public <T> RetryResult<T> execute(KeyedCallable<T> action, RetryClassifier<? super T> classifier)
            throws Exception {
        return execute(keyGenerator.newKey(), action, classifier);
    }

    /**
     * Runs {@code action} with a key the caller already holds, e.g. one persisted before a crash so
     * that the repeat after a restart is recognized by the server too.
     *
     * @param <T> the result type
     * @param idempotencyKey the {@code Idempotency-Key} value sent on every attempt
     * @param action the action
     * @param classifier the classifier
     * @return the retry result
     * @throws Exception whatever the code under test throws
     */
    public <T> RetryResult<T> execute(
            String idempotencyKey, KeyedCallable<T> action, RetryClassifier<? super T> classifier)
            throws Exception {
        Objects.requireNonNull(idempotencyKey, "idempotencyKey must not be null");
        Objects.requireNonNull(action, "action must not be null");
        Objects.requireNonNull(classifier, "classifier must not be null");
        RetrySession session = new RetrySession(policy, budget, listener, idempotencyKey);
        while (true) {
            Attempt attempt = session.begin();
            T value = null;
            Exception failure = null;
            RetryDecision decision;
            try {
                value = action.call(attempt);
                decision = classifier.classifyResult(value);
            } catch (InterruptedException e) {
                throw session.withEarlierFailures(e);
            } catch (Exception e) {
                failure = e;
                decision = classifier.classifyFailure(e);
            }
            Optional<Duration> delay =
                    Objects.requireNonNull(decision, "classifier returned null").shouldRetry()
                            ? session.scheduleRetry(decision)
                            : Optional.empty();
            if (delay.isEmpty()) {
                if (failure != null) {
                    throw session.withEarlierFailures(failure);
                }
                return new RetryResult<>(value, idempotencyKey, session.attempts());
            }
            if (failure != null) {
                session.recordRetriedFailure(failure);
            }
            policy.sleeper().sleep(delay.get());
        }
    }

    /**
     * The policy applied to every call.
     *
     * @return the policy applied to every call
     */
    public RetryPolicy policy() {
        return policy;
    }

    /**
     * The budget shared by every call.
     *
     * @return the budget shared by every call
     */
    public RetryBudget budget() {
        return budget;
    }

    /** Validating builder. Not thread-safe. */
    public static final class Builder {
        private RetryPolicy policy = RetryPolicy.defaults();
        private RetryBudget budget;
        private RetryListener listener = RetryListener.NONE;
        private IdempotencyKeyGenerator keyGenerator = IdempotencyKeyGenerator.uuidV7();

        private Builder() {}

        /**
         * The retry policy.
         *
         * @param policy the policy
         * @return this builder
         */
        public Builder policy(RetryPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy must not be null");
            return this;
        }

        /**
         * The budget; pass the same instance to several retriers to share it.
         *
         * @param budget the budget
         * @return this builder
         */
        public Builder budget(RetryBudget budget) {
            this.budget = Objects.requireNonNull(budget, "budget must not be null");
            return this;
        }

        /**
         * The listener.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(RetryListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener must not be null");
            return this;
        }

        /**
         * Where keys come from.
         *
         * @param keyGenerator the key generator
         * @return this builder
         */
        public Builder keyGenerator(IdempotencyKeyGenerator keyGenerator) {
            this.keyGenerator = Objects.requireNonNull(keyGenerator, "keyGenerator must not be null");
            return this;
        }

        /**
         * Builds the retrier; without an explicit budget it gets its own default one (policy's ticker).
         *
         * @return the retrier
         */
        public Retrier build() {
            return new Retrier(this);
        }
    }
}
