package dev.idem.spring;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.CallOptions;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import java.util.Optional;

/**
 * Runs work once per key inside a database transaction that also completes the record (the JDBC
 * transactional mode, {@link SpringTransactionalIdempotency}), named without JDBC types so that
 * {@link Idempotent} and the filter can ask for it when idem-store-jdbc is absent.
 */
public interface TransactionalExecutor {
    /**
     * Runs {@code work} at most once for {@code key}, its writes and the record's completion in
     * one transaction; replays decode the stored result as {@code type}.
     *
     * @param <T> the result type
     * @param key the idempotency key
     * @param request what the fingerprint is taken of
     * @param type the result type
     * @param options per-call options
     * @param work the business work
     * @return the result, fresh or replayed
     */
    <T> Result<T> execute(IdempotencyKey key, Object request, TypeReference<T> type, CallOptions options,
            Work<? extends T> work);

    /**
     * Why every call would be refused here (the store is not JDBC, no unique DataSource or
     * transaction manager), so that startup can refuse what needs the mode; empty when it runs.
     *
     * @return the reason, or empty
     */
    default Optional<String> unavailable() {
        return Optional.empty();
    }
}
