package dev.idem.reactor;

import dev.idem.engine.ExecutionContext;
import dev.idem.engine.InterruptedStep;
import dev.idem.engine.Reconciliation;
import java.util.Objects;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Steps of reactive work ({@link ReactorIdempotency}'s work functions), as {@code Mono}s: the
 * engine's {@link ExecutionContext#step(String, Class, dev.idem.engine.StepAction) step} and
 * {@link ExecutionContext#atMostOnceStep(String, Class, dev.idem.engine.StepAction,
 * dev.idem.engine.StepReconciler) atMostOnceStep}, with the same guarantees:
 *
 * <pre>{@code
 * idem.call(key, order, Receipt.class, ctx ->
 *         ReactorSteps.atMostOnceStep(ctx, "wire", Transfer.class,
 *                 bank.wire(order, ctx.downstreamKey("wire")),                 // a Mono<Transfer>
 *                 started -> bank.findByReference(started.downstreamKey())     // a Mono<Transfer>, empty if none
 *                         .map(Reconciliation::happened)
 *                         .defaultIfEmpty(Reconciliation.didNotHappen()))
 *         .map(Receipt::of));
 * }</pre>
 *
 * A step's journal writes are blocking store calls, made in the work's step order, so each step
 * runs on {@link Schedulers#boundedElastic()} (never on an event loop or the subscriber's thread):
 * the step's {@code Mono} (and the reconciler's) is subscribed there with the subscriber's
 * {@code Context} and waited for, then the result is journaled. Compose the steps of one work one
 * after another ({@code flatMap}, {@code then}): steps run one at a time, in the same order on every
 * attempt. A step's {@code Mono} that completes empty gives the result null. Lazy: nothing runs
 * until the returned {@code Mono} is subscribed, once per subscription.
 */
public final class ReactorSteps {
    private ReactorSteps() {
    }

    /**
     * A step whose result is journaled once it completes, and replayed without subscribing to
     * {@code action} on an attempt that finds it journaled.
     *
     * @param <R> the step's result type
     * @param ctx the work's execution context
     * @param name the step's name, unique within the work
     * @param type what a journaled result is decoded as
     * @param action the step's body
     * @return the step's result, or the journaled one
     */
    public static <R> Mono<R> step(ExecutionContext ctx, String name, Class<R> type, Mono<? extends R> action) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(action, "action");
        return blocking(view -> ctx.step(name, type, () -> action.contextWrite(view).block()));
    }

    /**
     * An at-most-once step (see {@link ExecutionContext#atMostOnceStep(String, Class,
     * dev.idem.engine.StepAction, dev.idem.engine.StepReconciler)}): its start is journaled before
     * {@code action} is subscribed, and an interrupted run is settled by {@code reconcile}, never
     * by subscribing to {@code action} again blindly.
     *
     * @param <R> the step's result type
     * @param ctx the work's execution context
     * @param name the step's name, unique within the work
     * @param type what a journaled result is decoded as
     * @param action the step's body, subscribed at most once per key
     * @param reconcile how an interrupted run is settled: a {@code Mono} of the answer (an empty one
     *     counts as {@link Reconciliation#unknown(String)})
     * @return the step's result, the journaled one, or the one {@code reconcile} found
     */
    public static <R> Mono<R> atMostOnceStep(ExecutionContext ctx, String name, Class<R> type,
            Mono<? extends R> action, Function<? super InterruptedStep, ? extends Mono<Reconciliation<R>>> reconcile) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(reconcile, "reconcile");
        return blocking(view -> ctx.atMostOnceStep(name, type, () -> action.contextWrite(view).block(), started -> {
            Reconciliation<R> answer = reconcile.apply(started).contextWrite(view).block();
            return answer != null ? answer : Reconciliation.unknown("the reconciler's Mono completed empty");
        }));
    }

    @FunctionalInterface
    private interface BlockingStep<R> {
        R run(reactor.util.context.ContextView view) throws Exception;
    }

    private static <R> Mono<R> blocking(BlockingStep<R> step) {
        Scheduler elastic = Schedulers.boundedElastic();
        return Mono.deferContextual(view -> Mono.fromCallable(() -> step.run(view))).subscribeOn(elastic);
    }
}
