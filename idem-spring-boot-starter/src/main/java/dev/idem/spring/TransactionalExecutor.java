package dev.idem.spring;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.CallOptions;
import dev.idem.engine.Result;
import dev.idem.engine.Work;

/** What {@code @Idempotent(transactional = true)} needs, without naming JDBC types. */
interface TransactionalExecutor {
    <T> Result<T> execute(IdempotencyKey key, Object request, TypeReference<T> type, CallOptions options,
            Work<? extends T> work);
}
