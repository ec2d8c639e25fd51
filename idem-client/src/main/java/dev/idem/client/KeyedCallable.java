package dev.idem.client;

/**
 * An operation that carries the idempotency key to the server itself (a gRPC metadata entry, a
 * message header, a request field), run once per attempt by a {@link Retrier}.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface KeyedCallable<T> {

    /**
     * Performs one attempt. Must send {@code attempt.idempotencyKey()} so that the server can recognize
     * a repeat; the key is the same for every attempt of one call.
     *
     * @param attempt the key and number of this attempt
     * @return the result
     * @throws Exception whatever the code under test throws
     */
    T call(Attempt attempt) throws Exception;
}
