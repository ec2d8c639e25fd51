package dev.idem.grpc;

import io.grpc.Status;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Which answers of a covered method are stored and replayed, by status code. An answer that is not
 * stored still reaches the client, but the key is released, so a retry runs the method again.
 */
@FunctionalInterface
public interface StatusStoragePolicy {
    /**
     * Whether an answer with {@code code} is stored.
     *
     * @param code the status code the handler closed the call with
     * @return whether the answer is stored
     */
    boolean stores(Status.Code code);

    /**
     * The default: the answers that repeating the same request cannot change are stored: {@code OK},
     * {@code INVALID_ARGUMENT}, {@code NOT_FOUND}, {@code ALREADY_EXISTS}, {@code FAILED_PRECONDITION}
     * and {@code OUT_OF_RANGE}. Not stored: the codes that depend on time, load or state outside the
     * request ({@code CANCELLED}, {@code UNKNOWN}, {@code DEADLINE_EXCEEDED}, {@code PERMISSION_DENIED},
     * {@code RESOURCE_EXHAUSTED}, {@code ABORTED}, {@code INTERNAL}, {@code UNAVAILABLE},
     * {@code DATA_LOSS}, {@code UNAUTHENTICATED}), and {@code UNIMPLEMENTED}, which says nothing
     * about the operation (as HTTP's 405).
     *
     * @return the default policy
     */
    static StatusStoragePolicy standard() {
        return of(EnumSet.of(Status.Code.OK, Status.Code.INVALID_ARGUMENT, Status.Code.NOT_FOUND,
                Status.Code.ALREADY_EXISTS, Status.Code.FAILED_PRECONDITION, Status.Code.OUT_OF_RANGE));
    }

    /**
     * Stores exactly the answers with these codes.
     *
     * @param codes the codes to store
     * @return the policy
     */
    static StatusStoragePolicy of(Set<Status.Code> codes) {
        Set<Status.Code> copy = EnumSet.noneOf(Status.Code.class);
        copy.addAll(Objects.requireNonNull(codes, "codes"));
        return copy::contains;
    }
}
