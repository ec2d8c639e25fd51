package dev.idem.store.dynamodb.internal;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Turns AWS SDK failures into idem's typed errors, saying whether a retry may help. Not
 * part of the API.
 */
public final class Failures {
    /** Error codes that mean "slow down" rather than "wrong". */
    private static final Set<String> THROTTLING = Set.of(
            "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded",
            "Throttling", "TooManyRequestsException", "LimitExceededException");
    /** Error codes that clear up by themselves (a transaction of the application holds the item). */
    private static final Set<String> TRANSIENT = Set.of(
            "TransactionConflictException", "TransactionInProgressException", "InternalServerError",
            "ServiceUnavailable", "ReplicatedWriteConflictException");

    private Failures() {
    }

    /** Whether DynamoDB rejected a write because the item would exceed 400 KB. */
    public static boolean isItemTooLarge(SdkException e) {
        if (!(e instanceof AwsServiceException)) {
            return false;
        }
        AwsServiceException ase = (AwsServiceException) e;
        String code = ase.awsErrorDetails() == null ? null : ase.awsErrorDetails().errorCode();
        String message = ase.awsErrorDetails() == null ? ase.getMessage() : ase.awsErrorDetails().errorMessage();
        return "ValidationException".equals(code) && message != null
                && message.toLowerCase(Locale.ROOT).contains("item size");
    }

    /**
     * The idem error for a failed call.
     *
     * @param operation the store operation, for the message
     * @param table the table name, for the message
     */
    public static StoreUnavailableException translate(String operation, String table, IdempotencyKey key,
            SdkException e) {
        return translate(operation, table, key, e, true);
    }

    /**
     * The idem error for a failed call.
     *
     * @param operation the store operation, for the message
     * @param table the table name, for the message
     * @param onCallerThread whether the call ran on the caller's thread (only then is an interrupt
     *     the SDK swallowed given back to it; an asynchronous client's thread is the SDK's)
     */
    public static StoreUnavailableException translate(String operation, String table, IdempotencyKey key,
            SdkException e, boolean onCallerThread) {
        String where = operation + " of " + (key == null ? "records" : key.toString()) + " in DynamoDB table '"
                + table + "'";
        if (e instanceof AwsServiceException) {
            AwsServiceException ase = (AwsServiceException) e;
            String code = ase.awsErrorDetails() == null ? null : ase.awsErrorDetails().errorCode();
            boolean throttled = ase.isThrottlingException() || (code != null && THROTTLING.contains(code));
            boolean retryable = throttled || ase.statusCode() >= 500 || (code != null && TRANSIENT.contains(code));
            String kind;
            if (throttled) {
                kind = "throttled";
            } else if ("ResourceNotFoundException".equals(code)) {
                kind = "table not found";
            } else if (retryable) {
                kind = "service error";
            } else {
                kind = "rejected";
            }
            return new StoreUnavailableException(where + " failed (" + kind + ", " + code + ", HTTP "
                    + ase.statusCode() + "): " + ase.getMessage(), e, retryable);
        }
        if (e instanceof AbortedException || hasCause(e, InterruptedException.class)) {
            // The SDK swallowed the interrupt to abort the call; give it back to the caller.
            if (onCallerThread) {
                Thread.currentThread().interrupt();
            }
            return new StoreUnavailableException(where + " was interrupted: " + e.getMessage(), e, true);
        }
        // A connection not acquired in time (an asynchronous client's pool full) is a timeout too.
        boolean io = e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException
                || hasCause(e, java.util.concurrent.TimeoutException.class)
                || ((hasCause(e, IOException.class) || hasCause(e, UncheckedIOException.class)) && !isParseFailure(e));
        if (io) {
            return new StoreUnavailableException(where + " failed (unreachable or timed out): " + e.getMessage(),
                    e, true);
        }
        String kind = e instanceof SdkClientException ? "client error or unreadable reply" : "SDK error";
        return new StoreUnavailableException(where + " failed (" + kind + "): " + e.getMessage(), e, false);
    }

    // A reply that arrived but cannot be parsed is not a network problem, although the
    // (shaded) JSON parser reports it as an IOException.
    private static boolean isParseFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c.getClass().getName().contains(".jackson.")
                    || (c.getMessage() != null && c.getMessage().startsWith("Unable to unmarshall"))) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return false;
    }
}
