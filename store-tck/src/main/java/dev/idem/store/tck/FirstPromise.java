package dev.idem.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.store.tck.StoreFixture.AnswersHeld;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The first promise of a {@link NonBlockingStore}: each call returns at once, before the backend
 * answered, and completes its stage later; it never waits for the answer on the caller's thread.
 * With the backend's answers held ({@link StoreFixture#holdAnswers()}), one call of each operation
 * is made: each must return (see {@link HeldAnswers}) with its stage not yet complete; once the
 * answers are let go, each stage completes with what the operation does. Deterministic: a form that
 * runs the blocking call on the caller's thread cannot return while the answer is held, and a stage
 * completed while it is held was not answered by the backend.
 */
final class FirstPromise {
    private static final Duration LONG = KitContext.LONG;

    private FirstPromise() {
    }

    static void eachCallReturnsBeforeItsAnswer(KitContext c, IdempotencyStore blocking, NonBlockingStore form)
            throws Exception {
        byte[] fp = Boundaries.fp("a");
        IdempotencyKey claimed = c.key("promise-claim");
        IdempotencyKey completed = c.key("promise-complete");
        IdempotencyKey released = c.key("promise-release");
        IdempotencyKey checkpointed = c.key("promise-checkpoint");
        IdempotencyKey extended = c.key("promise-extend");
        IdempotencyKey found = c.key("promise-find");
        long tc = c.token();
        long tr = c.token();
        long tk = c.token();
        long te = c.token();
        for (Map.Entry<IdempotencyKey, Long> held : Map.of(completed, tc, released, tr, checkpointed, tk, extended,
                te, found, c.token()).entrySet()) {
            assertThat(blocking.claim(held.getKey(), fp, held.getValue(), LONG, LONG).claimed()).isTrue();
        }

        Map<String, CompletionStage<?>> stages = new LinkedHashMap<>();
        AtomicReference<String> step = new AtomicReference<>();
        AnswersHeld hold = c.fixture.holdAnswers();
        try {
            HeldAnswers.returnWhileHeld(hold, "NonBlockingStore", step, () -> {
                call(stages, step, "claim", () -> form.claim(claimed, fp, c.token(), LONG, LONG));
                call(stages, step, "complete", () -> form.complete(completed, tc, Boundaries.bytes("done"), LONG));
                call(stages, step, "release", () -> form.release(released, tr));
                call(stages, step, "checkpoint", () -> form.checkpoint(checkpointed, tk, Boundaries.bytes("j")));
                call(stages, step, "extendLease", () -> form.extendLease(extended, te, LONG));
                call(stages, step, "find", () -> form.find(found));
                return null;
            });
            stages.forEach((operation, stage) -> assertThat(stage.toCompletableFuture().isDone())
                    .as("NonBlockingStore.%s's stage completed while the backend held its answer", operation)
                    .isFalse());
        } finally {
            hold.close();
        }

        assertThat(((ClaimResult) answer(stages, "claim")).status()).as("claim, answered after the hold")
                .isEqualTo(Status.ACQUIRED);
        assertThat(answer(stages, "complete")).as("complete, answered after the hold").isEqualTo(true);
        assertThat(answer(stages, "release")).as("release, answered after the hold").isEqualTo(true);
        assertThat(answer(stages, "checkpoint")).as("checkpoint, answered after the hold").isEqualTo(true);
        assertThat((Optional<?>) answer(stages, "extendLease")).as("extendLease, answered after the hold").isPresent();
        assertThat((Optional<?>) answer(stages, "find")).as("find, answered after the hold").isPresent();
        assertThat(blocking.find(completed).map(StoredRecord::state)).contains(RecordState.COMPLETED);
        assertThat(blocking.find(released).map(StoredRecord::state)).contains(RecordState.RELEASED);
        assertThat(blocking.find(checkpointed).map(StoredRecord::journal)).contains(Boundaries.bytes("j"));
    }

    private static void call(Map<String, CompletionStage<?>> stages, AtomicReference<String> step, String operation,
            Supplier<CompletionStage<?>> call) {
        step.set("NonBlockingStore." + operation);
        CompletionStage<?> stage = call.get();
        assertThat(stage).as("NonBlockingStore.%s's stage", operation).isNotNull();
        stages.put(operation, stage);
    }

    private static Object answer(Map<String, CompletionStage<?>> stages, String operation) throws Exception {
        CompletableFuture<?> stage = stages.get(operation).toCompletableFuture();
        return stage.get(NonBlockingView.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }
}
