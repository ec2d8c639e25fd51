package dev.idem.store.dynamodb.internal;

import dev.idem.api.StoreUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * The three DynamoDB requests the store makes, as stages, whatever the client: over a
 * {@link DynamoDbClient} each call runs on the calling thread and returns a completed stage, over
 * a {@link DynamoDbAsyncClient} it returns at once and its stage completes on the SDK's threads.
 * So the store's rounds ({@link ClaimMachine}, {@link RecordOperations}) are written once. Not
 * part of the API.
 */
public abstract class DynamoDbCalls {
    private DynamoDbCalls() {
    }

    /**
     * Whether calls run on the caller's thread (a synchronous client).
     *
     * @return true for a synchronous client
     */
    public abstract boolean onCallerThread();

    abstract CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request);

    abstract CompletableFuture<PutItemResponse> putItem(PutItemRequest request);

    abstract CompletableFuture<GetItemResponse> getItem(GetItemRequest request);

    /**
     * The calls of a synchronous client.
     *
     * @param client the client
     * @return its calls
     */
    public static DynamoDbCalls of(DynamoDbClient client) {
        return new DynamoDbCalls() {
            @Override
            public boolean onCallerThread() {
                return true;
            }

            @Override
            CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
                return now(() -> client.updateItem(request));
            }

            @Override
            CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
                return now(() -> client.putItem(request));
            }

            @Override
            CompletableFuture<GetItemResponse> getItem(GetItemRequest request) {
                return now(() -> client.getItem(request));
            }
        };
    }

    /**
     * The calls of an asynchronous client.
     *
     * @param client the client
     * @return its calls
     */
    public static DynamoDbCalls of(DynamoDbAsyncClient client) {
        return new DynamoDbCalls() {
            @Override
            public boolean onCallerThread() {
                return false;
            }

            @Override
            CompletableFuture<UpdateItemResponse> updateItem(UpdateItemRequest request) {
                return started(() -> client.updateItem(request));
            }

            @Override
            CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
                return started(() -> client.putItem(request));
            }

            @Override
            CompletableFuture<GetItemResponse> getItem(GetItemRequest request) {
                return started(() -> client.getItem(request));
            }
        };
    }

    private static <R> CompletableFuture<R> now(Supplier<R> call) {
        try {
            return CompletableFuture.completedFuture(call.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    // A client that throws instead of failing its future (a closed one may) fails the stage alike.
    private static <R> CompletableFuture<R> started(Supplier<CompletableFuture<R>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The failure a stage stands for, without the {@link CompletionException} a dependent stage
     * wraps it in.
     *
     * @param failure a stage's failure
     * @return the failure itself
     */
    public static Throwable cause(Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * The value of a stage, waited for; its failure rethrown as it was (a {@link RuntimeException}
     * or an {@link Error}).
     *
     * @param stage the stage
     * @param <R> the value's type
     * @return the value
     */
    public static <R> R join(CompletableFuture<R> stage) {
        try {
            return stage.get();
        } catch (InterruptedException e) {
            // A blocking caller waiting for the asynchronous client: the request may still land.
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted while waiting for DynamoDB's answer", e, true);
        } catch (ExecutionException e) {
            Throwable t = cause(e.getCause());
            if (t instanceof RuntimeException) {
                throw (RuntimeException) t;
            }
            if (t instanceof Error) {
                throw (Error) t;
            }
            throw new StoreUnavailableException("DynamoDB call failed: " + t, t, false);
        }
    }
}
