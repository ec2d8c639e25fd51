package dev.idem.engine;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.time.Deadline;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * What the work knows about the execution it is part of, and the steps it may split into.
 * The engine passes it to the work:
 * <pre>{@code
 * Charge charge = engine.call(key, request, Charge.class, ctx -> {
 *     // A key that stays the same on every attempt, for a payment provider that deduplicates too:
 *     Charge c = psp.charge(request, ctx.downstreamKey());
 *     if (ctx.attempt() > 1) {
 *         log.info("attempt " + ctx.attempt() + " of " + ctx.key());   // a takeover or a retry
 *     }
 *     return c;
 * });
 *
 * // Several effects: each finished step is journaled and not run again by a worker that takes over.
 * Order order = engine.call(key, request, Order.class, ctx -> {
 *     Reservation r = ctx.step("reserve", Reservation.class, () -> stock.reserve(request));
 *     Charge c = ctx.step("charge", Charge.class, () -> psp.charge(request, ctx.downstreamKey("charge")));
 *     return new Order(r.id(), c.id());
 * });
 * }</pre>
 *
 * <h2>Steps</h2>
 * Work of several effects (reserve stock, charge, ship) can run each as a named step:
 * {@code ctx.step("charge", Charge.class, () -> psp.charge(ctx.downstreamKey("charge"), order))}.
 * When a step finishes, its result is journaled in the key's record, fenced by this
 * execution's token, before the step returns. A worker that later claims the key (a takeover
 * after a crash, or a retry after a transient failure, with the same request) gets the
 * journal: its finished steps return their journaled results without running, and the
 * first unfinished step and the rest run. The work's final result is stored as for any work.
 *
 * <p>Rules: steps run one after another in the work's thread while the work runs (a step
 * started from another thread or after the work returned fails with
 * {@link IllegalStateException} before its action runs); a step name is used once per
 * execution; the work must start the same steps in the same order on every attempt, all the
 * journal holds included (the journal is matched by position and name, and checked for steps
 * the work no longer starts when it returns; a mismatch is a {@link StepMismatchException}),
 * so steps may depend on the request and on earlier steps' results, not on time or chance.
 * A step that was interrupted mid-way (its worker died before the journal write) runs again:
 * pass {@link #downstreamKey(String)} to the external system it calls so that it
 * deduplicates the repeat, or, for database writes on a store that joins the caller's
 * transaction, use {@link #atomicStep(String, Class, AtomicStepAction)} so the writes and the
 * journal entry commit together. For an effect that neither deduplicates nor joins the
 * transaction (a bank transfer without idempotency keys, an e-mail), use
 * {@link #atMostOnceStep(String, Class, StepAction, StepReconciler)}: its start is journaled
 * before it runs, and an interrupted one is settled by asking the other system, never run again
 * blindly.
 *
 * <p>How the key ends is decided by what the engine recorded of the steps, whatever the work
 * does with their exceptions: a result that cannot be journaled fails the key finally
 * ({@link StepNotJournaledException}) even if the work swallows or translates the exception;
 * a journal write the store failed keeps the claim until its lease lapses; and once a step is
 * journaled a transient failure hands the key back (its lease cut short) instead of releasing
 * it, so the key stays bound to this request's fingerprint and the same request resumes.
 */
public interface ExecutionContext {

    /**
     * The key being executed.
     *
     * @return the key being executed
     */
    IdempotencyKey key();

    /**
     * The fencing token of this execution's claim: drawn from the engine's own source (never
     * from the injectable jitter randomness), unique per claim, and what the store checks
     * before accepting this execution's outcome.
     *
     * @return the token
     */
    long fencingToken();

    /**
     * How many times this key has started executing, this time included (1 the first time).
     *
     * @return how many times this key has started executing, this time included (1 the first time)
     */
    int attempt();

    /**
     * When the lease lapses, in the store's clock; after it a duplicate may take over.
     *
     * @return when the lease lapses, in the store's clock
     */
    Instant leaseDeadline();

    /**
     * The caller's deadline ({@link CallOptions.Builder#deadline}; over HTTP, the request's
     * {@code X-Request-Timeout}), if it gave one: pass {@link Deadline#remaining()} on to what the
     * work calls, with {@link #downstreamKey()}. It stops nothing by itself: work that runs past it
     * still completes and its outcome is stored. While blocking work runs it is also bound to the
     * work's thread ({@link Deadline#current()}), where idem-client picks it up; asynchronous work
     * that calls out from other threads binds it there with {@link Deadline#bind()}.
     *
     * @return the caller's deadline, if any
     */
    default Optional<Deadline> deadline() {
        return Optional.empty();
    }

    /**
     * A stable, opaque key derived from scope, operation and client key (URL-safe, 43
     * characters), the same on every attempt, to hand to downstream APIs that deduplicate
     * (a payment provider's own idempotency key).
     *
     * @return a stable, opaque key derived from scope, operation and client key (URL-safe, 43 characters), the same on every attempt, to hand to downstream APIs that deduplicate (a payment provider's own idempotency key)
     */
    String downstreamKey();

    /**
     * Extends the lease for long work, so no duplicate takes over while it still runs.
     *
     * @param lease the new lease, from now (at least 1 ms, at most
     *     {@link IdempotencyEngine#MAX_DURATION})
     * @return the new lease deadline
     * @throws dev.idem.api.LeaseLostException if another worker already took over
     * @throws IllegalArgumentException if {@code lease} is out of range
     */
    Instant extendLease(Duration lease);

    /**
     * Runs a step with a result once per key: on an attempt that finds it in the key's
     * journal, returns the journaled result without running {@code action}; otherwise runs it
     * and journals its result before returning it.
     *
     * @param <R> the result type
     * @param name the step's name, unique within the work (at most 200 bytes in UTF-8)
     * @param type what a journaled result is decoded as
     * @param action the step's body
     * @return the step's result, or the journaled one (equal to it after a JSON round trip)
     * @throws StepMismatchException if the name was already used in this execution, or the
     *     journal recorded another step at this position, or its result cannot be read as {@code type}
     * @throws dev.idem.api.LeaseLostException if another worker took the key over; the step's
     *     result is not journaled and no later step of this execution runs
     * @throws StepNotJournaledException if the step ran but its result cannot be journaled
     * @throws dev.idem.api.StoreUnavailableException if the step ran but the store failed its
     *     journal write; no later step of this execution runs, and the claim is kept until its
     *     lease lapses
     * @throws IllegalStateException if called from another thread than the work's, inside
     *     another step, or after the work returned; the action does not run
     * @throws Exception whatever {@code action} throws; nothing is journaled then, and the
     *     work may catch it and start the step again
     */
    <R> R step(String name, Class<R> type, StepAction<? extends R> action) throws Exception;

    /**
     * Like {@link #step(String, Class, StepAction)} for a generic result type.
     *
     * @param <R> the result type
     * @param name the step's name, unique within the work
     * @param type what a journaled result is decoded as
     * @param action the step's body
     * @return the step's result, or the journaled one
     * @throws Exception as {@link #step(String, Class, StepAction)}
     */
    <R> R step(String name, TypeReference<R> type, StepAction<? extends R> action) throws Exception;

    /**
     * Runs a step whose business writes and journal entry commit in one transaction: like
     * {@link #step(String, Class, StepAction)}, but {@code action} saves its own journal entry
     * (see {@link AtomicStepAction}) with the store's transactional checkpoint, so a worker
     * that dies mid-step leaves both or neither. After it returns, the engine reads the record
     * once to confirm the entry is there.
     *
     * @param <R> the result type
     * @param name the step's name, unique within the work (at most 200 bytes in UTF-8)
     * @param type what a journaled result is decoded as
     * @param action the step's body, which commits its writes and its journal entry together
     * @return the step's result, or the journaled one
     * @throws StepMismatchException as for {@link #step(String, Class, StepAction)}
     * @throws dev.idem.api.LeaseLostException if the action's fenced checkpoint was refused
     *     (another worker took the key over); no later step of this execution runs
     * @throws StepNotJournaledException if the action returned without its journal entry on
     *     record, returned another result than it journaled, or its result cannot be journaled;
     *     the key is failed finally
     * @throws Exception whatever {@code action} throws; if it had asked for its journal
     *     ({@link AtomicStepAction.Checkpoint#journalWith}) no later step of this execution runs,
     *     since its transaction may have committed
     */
    <R> R atomicStep(String name, Class<R> type, AtomicStepAction<? extends R> action) throws Exception;

    /**
     * Like {@link #atomicStep(String, Class, AtomicStepAction)} for a generic result type.
     *
     * @param <R> the result type
     * @param name the step's name, unique within the work
     * @param type what a journaled result is decoded as
     * @param action the step's body, which commits its writes and its journal entry together
     * @return the step's result, or the journaled one
     * @throws Exception as {@link #atomicStep(String, Class, AtomicStepAction)}
     */
    <R> R atomicStep(String name, TypeReference<R> type, AtomicStepAction<? extends R> action) throws Exception;

    /**
     * Runs a step at most once per key, for an effect that must not repeat and that the
     * downstream system cannot deduplicate. Before {@code action} runs, the step's start is
     * journaled with this execution's fencing token (one more fenced write than
     * {@link #step(String, Class, StepAction)}), then its result as for any step. A worker that
     * later claims the key and finds the start without a result does not run the step: it calls
     * {@code reconcile}, which asks the other system and answers
     * {@link Reconciliation#happened(Object) happened} (its result is journaled and the work goes
     * on), {@link Reconciliation#didNotHappen() did not happen} (then, and only then, the step
     * runs, after a new start of this attempt) or {@link Reconciliation#unknown(String) unknown}
     * (the key fails finally with {@link StepOutcomeUnknownException}, stored and replayed, so
     * nobody runs the step twice). {@code reconcile} is called exactly when the start was found
     * without a result, and never on an attempt that finds the result.
     *
     * <p>A stale worker can neither start nor finish the step: both writes are fenced, and after
     * the start is on record the lease is checked on the engine's ticker (and renewed, fenced, if
     * it ran out), so a worker that stalled past its lease finds it was taken over before its
     * action runs. What remains is a worker that stalls past its lease inside {@code action},
     * between that check and the effect reaching the other system: keep leases well above a
     * step's duration, as for any lease. An action that throws leaves its start without a result:
     * no later step of this execution runs, and whoever claims the key next reconciles it.
     *
     * @param <R> the result type
     * @param name the step's name, unique within the work (at most 200 bytes in UTF-8)
     * @param type what a journaled result is decoded as
     * @param action the step's body, run at most once per key
     * @param reconcile how an interrupted run of the step is settled
     * @return the step's result, the journaled one, or the one {@code reconcile} found
     * @throws StepMismatchException as for {@link #step(String, Class, StepAction)}
     * @throws StepOutcomeUnknownException if the step was interrupted and {@code reconcile}
     *     answered {@link Reconciliation#unknown(String)}; the key is failed finally
     * @throws dev.idem.api.LeaseLostException if another worker took the key over; the step does
     *     not run (or its result is not journaled) and no later step of this execution runs
     * @throws StepNotJournaledException if the step ran but its result cannot be journaled
     * @throws dev.idem.api.StoreUnavailableException if the store failed the start's write (the
     *     action did not run) or the result's (as for {@link #step(String, Class, StepAction)})
     * @throws IllegalStateException as for {@link #step(String, Class, StepAction)}
     * @throws Exception whatever {@code action} or {@code reconcile} throws; the step stays
     *     unsettled and no later step of this execution runs
     */
    <R> R atMostOnceStep(String name, Class<R> type, StepAction<? extends R> action,
            StepReconciler<? extends R> reconcile) throws Exception;

    /**
     * Like {@link #atMostOnceStep(String, Class, StepAction, StepReconciler)} for a generic result type.
     *
     * @param <R> the result type
     * @param name the step's name, unique within the work
     * @param type what a journaled result is decoded as
     * @param action the step's body, run at most once per key
     * @param reconcile how an interrupted run of the step is settled
     * @return the step's result, the journaled one, or the one {@code reconcile} found
     * @throws Exception as {@link #atMostOnceStep(String, Class, StepAction, StepReconciler)}
     */
    <R> R atMostOnceStep(String name, TypeReference<R> type, StepAction<? extends R> action,
            StepReconciler<? extends R> reconcile) throws Exception;

    /**
     * Runs a step with no result once per key: skipped on an attempt that finds it finished
     * in the key's journal; otherwise run, then journaled as finished before returning.
     *
     * @param name the step's name, unique within the work
     * @param action the step's body
     * @throws Exception as {@link #step(String, Class, StepAction)}
     */
    void step(String name, VoidStepAction action) throws Exception;

    /**
     * A stable, opaque key for one step (URL-safe, 43 characters), derived from scope,
     * operation, client key and {@code stepName}: the same on every attempt, distinct per
     * step. Hand it to the downstream API the step calls, so a step that runs again after its
     * worker died mid-step is deduplicated there. Any name is accepted; it need not be a step
     * that has run.
     *
     * @param stepName the step's name (at most 200 bytes in UTF-8)
     * @return the step's downstream key
     */
    String downstreamKey(String stepName);
}
