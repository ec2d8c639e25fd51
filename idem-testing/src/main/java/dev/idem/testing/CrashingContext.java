package dev.idem.testing;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.time.Deadline;
import dev.idem.engine.AtomicStepAction;
import dev.idem.engine.ExecutionContext;
import dev.idem.engine.StepAction;
import dev.idem.engine.StepReconciler;
import dev.idem.engine.VoidStepAction;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The engine's context as the user's work sees it under the crash tester: every call goes to the
 * engine's, and each step passes four boundaries ({@code points}): before it, in its action before
 * the user's code (for an at-most-once step, after its start marker), in its action after the
 * user's code returned (before the result is journaled), and after it. A replayed step passes only
 * the first and the last. Reconciler calls are reported too.
 */
final class CrashingContext implements ExecutionContext {
    private final ExecutionContext ctx;
    private final Consumer<String> points;
    private final Consumer<String> reconciled;

    CrashingContext(ExecutionContext ctx, Consumer<String> points, Consumer<String> reconciled) {
        this.ctx = ctx;
        this.points = points;
        this.reconciled = reconciled;
    }

    @Override
    public IdempotencyKey key() {
        return ctx.key();
    }

    @Override
    public long fencingToken() {
        return ctx.fencingToken();
    }

    @Override
    public int attempt() {
        return ctx.attempt();
    }

    @Override
    public Instant leaseDeadline() {
        return ctx.leaseDeadline();
    }

    @Override
    public Optional<Deadline> deadline() {
        return ctx.deadline();
    }

    @Override
    public String downstreamKey() {
        return ctx.downstreamKey();
    }

    @Override
    public String downstreamKey(String stepName) {
        return ctx.downstreamKey(stepName);
    }

    @Override
    public Instant extendLease(Duration lease) {
        return ctx.extendLease(lease);
    }

    private <R> StepAction<R> watched(String step, String started, StepAction<? extends R> action) {
        return () -> {
            points.accept("in " + step + ", " + started);
            R value = action.run();
            points.accept("in " + step + ", after its action returned, before its result is journaled");
            return value;
        };
    }

    private <R> R around(String step, StepCall<R> call) throws Exception {
        points.accept("before " + step);
        R value = call.run();
        points.accept("after " + step);
        return value;
    }

    @FunctionalInterface
    private interface StepCall<R> {
        R run() throws Exception;
    }

    @Override
    public <R> R step(String name, Class<R> type, StepAction<? extends R> action) throws Exception {
        String step = "step '" + name + "'";
        return around(step, () -> ctx.step(name, type, watched(step, "before its action", action)));
    }

    @Override
    public <R> R step(String name, TypeReference<R> type, StepAction<? extends R> action) throws Exception {
        String step = "step '" + name + "'";
        return around(step, () -> ctx.step(name, type, watched(step, "before its action", action)));
    }

    @Override
    public void step(String name, VoidStepAction action) throws Exception {
        String step = "step '" + name + "'";
        around(step, () -> {
            ctx.step(name, () -> watched(step, "before its action", () -> {
                action.run();
                return null;
            }).run());
            return null;
        });
    }

    @Override
    public <R> R atMostOnceStep(String name, Class<R> type, StepAction<? extends R> action,
            StepReconciler<? extends R> reconcile) throws Exception {
        String step = "at-most-once step '" + name + "'";
        return around(step, () -> ctx.atMostOnceStep(name, type,
                watched(step, "after its start marker, before its action", action), reported(reconcile)));
    }

    @Override
    public <R> R atMostOnceStep(String name, TypeReference<R> type, StepAction<? extends R> action,
            StepReconciler<? extends R> reconcile) throws Exception {
        String step = "at-most-once step '" + name + "'";
        return around(step, () -> ctx.atMostOnceStep(name, type,
                watched(step, "after its start marker, before its action", action), reported(reconcile)));
    }

    private <R> StepReconciler<R> reported(StepReconciler<? extends R> reconcile) {
        return interrupted -> {
            reconciled.accept(interrupted.name() + " (started by attempt " + interrupted.startedBy() + ")");
            @SuppressWarnings("unchecked")
            dev.idem.engine.Reconciliation<R> answer = (dev.idem.engine.Reconciliation<R>) reconcile.reconcile(
                    interrupted);
            return answer;
        };
    }

    @Override
    public <R> R atomicStep(String name, Class<R> type, AtomicStepAction<? extends R> action) throws Exception {
        String step = "atomic step '" + name + "'";
        return around(step, () -> ctx.atomicStep(name, type, watchedAtomic(step, action)));
    }

    @Override
    public <R> R atomicStep(String name, TypeReference<R> type, AtomicStepAction<? extends R> action)
            throws Exception {
        String step = "atomic step '" + name + "'";
        return around(step, () -> ctx.atomicStep(name, type, watchedAtomic(step, action)));
    }

    private <R> AtomicStepAction<R> watchedAtomic(String step, AtomicStepAction<? extends R> action) {
        return checkpoint -> {
            points.accept("in " + step + ", before its action");
            R value = action.run(checkpoint);
            points.accept("in " + step + ", after its action committed, before the engine confirmed it");
            return value;
        };
    }
}
