package dev.idem.engine;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.internal.Fingerprinter;
import dev.idem.engine.internal.Sealer;
import dev.idem.engine.internal.StepJournal;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The step half of an execution's context: runs steps, journals their results through
 * {@link dev.idem.api.store.IdempotencyStore#checkpoint}, and replays the results a
 * previous attempt journaled.
 *
 * <h2>Algorithm</h2>
 * The claim hands over the record's journal (a takeover, or a re-claim after a release,
 * with the same fingerprint). Steps are matched to it by position: the i-th step the work
 * starts must carry the name at position i, and its journaled result is returned without
 * running the step. Past the journal's end a step runs, and its result is appended and saved,
 * fenced by this execution's token, before the step returns, so the next step never starts
 * before the previous one is on record. A refused save means another worker took the key
 * over: {@link LeaseLostException}, and every later step of this execution refuses to run.
 * Before a step runs, a lease that has run out is renewed (fenced), so a worker that stalled
 * between steps learns it was taken over before it repeats an effect; "run out" is measured
 * on the engine's ticker from before the claim, so neither a skewed store clock nor a
 * stepped wall clock can hide it.
 *
 * <p>Steps run one at a time, in the work's thread, while the work runs; a step started
 * anywhere else, nested in another, or after the work returned fails before its action runs.
 *
 * <h2>What the engine learns here</h2>
 * The execution ends by this state, not by what the work made of the steps' exceptions:
 * {@link #stepNotJournaled()} (a step ran but cannot be journaled: the key fails finally),
 * {@link #unjournaled()} (a step ran but its journal write failed: the claim is kept until
 * the lease lapses), {@link #journalMayHoldSteps()} (the key is handed back rather than
 * released, so its fingerprint stays bound) and {@link #unreplayedSteps()} (journaled steps
 * the work no longer runs).
 */
abstract class StepContext implements ExecutionContext, Heartbeat.Lease {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    private final EngineParts parts;
    private final IdempotencyKey stepKey;
    private final long token;
    private final Duration lease;
    private final byte[] claimedJournal;
    private final byte[] claimedFingerprint;
    private final Thread owner;
    // Made at the first step: most work runs none, and pays for no set.
    private Set<String> names;
    private StepJournal journal;
    private int position;
    private boolean running;
    private boolean open = true;
    private RuntimeException stopped;
    private StepNotJournaledException notJournaledFailure;
    private StoreUnavailableException unjournaled;
    private boolean checkpointed;

    /**
     * @param journal the journal the claim handed over, decrypted (null for none)
     * @param owner the only thread steps may run in, or null to allow any thread (steps still
     *     run one at a time), for a driver whose work continues on other threads
     */
    StepContext(EngineParts parts, IdempotencyKey key, StoredRecord claim, byte[] journal, Duration lease,
            Thread owner) {
        this.parts = parts;
        this.stepKey = key;
        this.token = claim.fencingToken();
        this.lease = lease;
        this.claimedJournal = journal;
        this.claimedFingerprint = claim.fingerprint();
        this.owner = owner;
    }

    /** The fingerprint the won claim's record holds: what its outcome and journal are bound to. */
    final byte[] claimedFingerprint() {
        return claimedFingerprint;
    }

    /** The journal as stored: sealed to this record when the engine encrypts. */
    private byte[] seal(String name, StepJournal journal) {
        try {
            return parts.sealer().seal(Sealer.Part.JOURNAL, stepKey, claimedFingerprint, journal.bytes());
        } catch (RuntimeException e) {
            throw notJournaled(name, "its journal could not be encrypted (" + e.getClass().getName() + ")", e);
        }
    }

    /** Whether the lease has run out by the engine's ticker, so it must be renewed before a step. */
    abstract boolean leaseRanOut();

    /** The work has ended: no step may start from now on. */
    final synchronized void close() {
        open = false;
    }

    /** The failure of a step that ran but cannot be journaled, or null: the key must fail finally with it. */
    final synchronized StepNotJournaledException stepNotJournaled() {
        return notJournaledFailure;
    }

    /** The store failure of a step that ran but whose journal write failed, or null: the claim must be kept. */
    final synchronized StoreUnavailableException unjournaled() {
        return unjournaled;
    }

    /** Whether the key's journal may hold steps (it did at the claim, or a journal write was attempted). */
    final synchronized boolean journalMayHoldSteps() {
        return checkpointed || StepJournal.holdsSteps(claimedJournal);
    }

    /**
     * A mismatch if the work ended without starting every step the journal holds (a step removed
     * while keys were in flight), or null.
     */
    final synchronized StepMismatchException unreplayedSteps() {
        if (!StepJournal.holdsSteps(claimedJournal)) {
            return null;
        }
        StepJournal held;
        try {
            held = journal != null ? journal : StepJournal.decode(claimedJournal);
        } catch (IdempotencyException e) {
            return new StepMismatchException(stepKey, "", "the key's journal cannot be read: " + e.getMessage(), e);
        }
        if (position >= held.size()) {
            return null;
        }
        String missing = held.entries().get(position).name();
        return new StepMismatchException(stepKey, missing, "the work of " + stepKey.operation() + " ended after "
                + position + " step(s) but the key's journal recorded " + held.size() + ", the next being '"
                + missing + "'; steps may not be renamed, reordered or removed while keys are in flight", null);
    }

    @Override
    public final <R> R step(String name, Class<R> type, StepAction<? extends R> action) throws Exception {
        Objects.requireNonNull(type, "type");
        return run(name, parts.codec().mapper().constructType(type), Objects.requireNonNull(action, "action"));
    }

    @Override
    public final <R> R step(String name, TypeReference<R> type, StepAction<? extends R> action) throws Exception {
        Objects.requireNonNull(type, "type");
        return run(name, parts.codec().mapper().constructType(type), Objects.requireNonNull(action, "action"));
    }

    @Override
    public final void step(String name, VoidStepAction action) throws Exception {
        Objects.requireNonNull(action, "action");
        run(name, null, () -> {
            action.run();
            return null;
        });
    }

    @Override
    public final <R> R atomicStep(String name, Class<R> type, AtomicStepAction<? extends R> action)
            throws Exception {
        Objects.requireNonNull(type, "type");
        return runAtomic(name, parts.codec().mapper().constructType(type), Objects.requireNonNull(action, "action"));
    }

    @Override
    public final <R> R atomicStep(String name, TypeReference<R> type, AtomicStepAction<? extends R> action)
            throws Exception {
        Objects.requireNonNull(type, "type");
        return runAtomic(name, parts.codec().mapper().constructType(type), Objects.requireNonNull(action, "action"));
    }

    @Override
    public final <R> R atMostOnceStep(String name, Class<R> type, StepAction<? extends R> action,
            StepReconciler<? extends R> reconcile) throws Exception {
        Objects.requireNonNull(type, "type");
        return runAtMostOnce(name, parts.codec().mapper().constructType(type), Objects.requireNonNull(action, "action"),
                Objects.requireNonNull(reconcile, "reconcile"));
    }

    @Override
    public final <R> R atMostOnceStep(String name, TypeReference<R> type, StepAction<? extends R> action,
            StepReconciler<? extends R> reconcile) throws Exception {
        Objects.requireNonNull(type, "type");
        return runAtMostOnce(name, parts.codec().mapper().constructType(type), Objects.requireNonNull(action, "action"),
                Objects.requireNonNull(reconcile, "reconcile"));
    }

    @Override
    public final String downstreamKey(String stepName) {
        return stepDownstreamKey(stepKey, StepJournal.checkName(stepName));
    }

    private <R> R run(String name, JavaType type, StepAction<? extends R> action) throws Exception {
        return start(name, type, null, (step, marker) -> {
            R value = action.run();
            step.mayHaveTakenEffect();
            record(name, value);
            return value;
        });
    }

    private <R> R runAtomic(String name, JavaType type, AtomicStepAction<? extends R> action) throws Exception {
        return start(name, type, null, (step, marker) -> {
            Pending pending = new Pending(name);
            R value;
            try {
                value = action.run(pending);
            } catch (LeaseLostException e) {
                if (e.key().equals(stepKey) && e.fencingToken() == token) {
                    throw stop(e);
                }
                throw stopIfAsked(pending, e);
            } catch (Exception | Error e) {
                throw stopIfAsked(pending, e);
            }
            step.mayHaveTakenEffect();
            confirm(name, pending, value);
            return value;
        });
    }

    /**
     * An at-most-once step: its start marker is journaled (fenced) before the action runs, and a
     * marker found without a result is settled by {@code reconcile}, never by running the action
     * blindly. After the marker is on record the lease is checked again, and renewed (fenced) if
     * it ran out meanwhile, so a worker that stalled while its marker was written learns that it
     * was taken over before its action runs: a taker-over may be reconciling the step right then.
     */
    private <R> R runAtMostOnce(String name, JavaType type, StepAction<? extends R> action,
            StepReconciler<? extends R> reconcile) throws Exception {
        return start(name, type, "an at-most-once step", (step, marker) -> {
            if (marker != null) {
                Reconciliation<? extends R> answer = settle(name, marker, reconcile);
                if (answer.outcome() == Reconciliation.Outcome.HAPPENED) {
                    // The interrupted attempt's effect stands: record it as this step's, never run it again.
                    step.mayHaveTakenEffect();
                    R value = answer.result();
                    record(name, value);
                    return value;
                }
                if (answer.outcome() == Reconciliation.Outcome.UNKNOWN) {
                    StepOutcomeUnknownException unknown = new StepOutcomeUnknownException(stepKey, name,
                            marker.startedBy(), attempt(), answer.reason());
                    LOG.log(Level.WARNING, "at-most-once step ''{0}'' of key {1}, started by attempt {2}, cannot be"
                            + " settled ({3}); the key is failed finally", name, stepKey.digest(), marker.startedBy(),
                            answer.reason());
                    throw failForGood(unknown);
                }
            }
            mark(name);
            // From here on the effect may happen: this execution never runs the step again.
            step.mayHaveTakenEffect();
            renewLapsedLease();
            R value;
            try {
                value = action.run();
            } catch (Exception | Error e) {
                // The effect may have happened in part: only a reconciler may settle the step now.
                stop(e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(
                        "at-most-once step '" + name + "' failed after its start marker; no later step of this"
                                + " execution runs", e));
                throw e;
            }
            record(name, value);
            return value;
        });
    }

    /** Asks {@code reconcile} about a step found started without a result; a failure stops this execution. */
    private <R> Reconciliation<? extends R> settle(String name, StepJournal.Entry marker,
            StepReconciler<? extends R> reconcile) throws Exception {
        Reconciliation<? extends R> answer;
        try {
            answer = reconcile.reconcile(new InterruptedStep(stepKey, name, marker.startedBy(), attempt(),
                    downstreamKey(name)));
        } catch (Exception | Error e) {
            // The step stays unsettled: no later step may be journaled after its marker.
            stop(e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException("the reconciler"
                    + " of at-most-once step '" + name + "' failed; no later step of this execution runs", e));
            throw e;
        }
        if (answer == null) {
            throw stop(new IllegalStateException("the reconciler of at-most-once step '" + name + "' of " + stepKey
                    + " returned null; it must return Reconciliation.happened(result), didNotHappen() or"
                    + " unknown(reason)"));
        }
        return answer;
    }

    /** Journals that {@code name} starts now, by this attempt: one fenced write, before the action runs. */
    private void mark(String name) {
        StepJournal next;
        synchronized (this) {
            next = journal.start(name, attempt());
        }
        long size = next.bytes().length + (parts.sealer().encrypts() ? Sealer.maxOverhead() : 0);
        if (size > parts.maxOutcomeBytes()) {
            throw tooLarge(name, size);
        }
        // Taken over: a stale worker never starts the step.
        save(name, next);
    }

    /**
     * A step body; calls {@link Started#mayHaveTakenEffect()} once the step's effect may have
     * happened. {@code marker} is the step's start marker found in the journal without a result
     * (only for an at-most-once step), or null.
     */
    private interface Body<R> {
        R run(Started step, StepJournal.Entry marker) throws Exception;
    }

    /** One step under way, as its body tells it: whether its effect may have happened yet. */
    private static final class Started {
        private boolean tookEffect;

        /** From here on the step's effect may have happened: it is not run again, nor its name freed. */
        void mayHaveTakenEffect() {
            tookEffect = true;
        }
    }

    /**
     * Runs a step at the next position: replays its journaled result, or runs {@code body}.
     *
     * @param atMostOnce what the step is, if it settles a start marker found at its position
     *     ("an at-most-once step"); null for a step that cannot
     */
    @SuppressWarnings("unchecked")
    private <R> R start(String name, JavaType type, String atMostOnce, Body<R> body) throws Exception {
        StepJournal.checkName(name);
        StepJournal.Entry journaled;
        synchronized (this) {
            if (!open) {
                throw new IllegalStateException("step '" + name + "' of " + stepKey + " started after the work"
                        + " ended; steps run only while the work runs");
            }
            if (owner != null && Thread.currentThread() != owner) {
                throw new IllegalStateException("step '" + name + "' of " + stepKey + " started in thread "
                        + Thread.currentThread().getName() + "; steps run one after another in the work's thread ("
                        + owner.getName() + ")");
            }
            if (stopped != null) {
                throw stopped;
            }
            if (running) {
                throw new IllegalStateException("step '" + name + "' started while another step runs; steps run"
                        + " one after another in the work's thread");
            }
            if (journal == null) {
                journal = StepJournal.decode(claimedJournal);
            }
            if (names == null) {
                names = new HashSet<>();
            }
            if (!names.add(name)) {
                throw new StepMismatchException(stepKey, name, "step name '" + name + "' is used twice in one"
                        + " execution of " + stepKey.operation() + "; each step needs its own name", null);
            }
            int at = position++;
            journaled = at < journal.size() ? journal.entries().get(at) : null;
            if (journaled != null && !journaled.name().equals(name)) {
                throw new StepMismatchException(stepKey, name, "step " + (at + 1) + " of " + stepKey.operation()
                        + " is '" + name + "' but the key's journal recorded '" + journaled.name() + "' there;"
                        + " steps may not be renamed, reordered or removed while keys are in flight", null);
            }
            if (journaled != null && journaled.started() && atMostOnce == null) {
                throw new StepMismatchException(stepKey, name, "step " + (at + 1) + " of " + stepKey.operation()
                        + ", '" + name + "', was started as an at-most-once step by attempt " + journaled.startedBy()
                        + " and interrupted, but the work now runs it as another kind of step, which would run it"
                        + " again without settling it; steps may not change kind while keys are in flight", null);
            }
            running = journaled == null || journaled.started();
        }
        if (journaled != null && !journaled.started()) {
            return type == null ? null : (R) decode(name, journaled.result(), type);
        }
        StepJournal.Entry marker = journaled;
        Started step = new Started();
        try {
            renewLapsedLease();
            return body.run(step, marker);
        } catch (StoreUnavailableException e) {
            if (step.tookEffect) {
                // The effect happened but may not be on record: no later step may build on it now,
                // and the key must not be given back while the write may still land.
                synchronized (this) {
                    if (unjournaled == null) {
                        unjournaled = e;
                    }
                }
                stop(e);
            }
            throw e;
        } finally {
            synchronized (this) {
                running = false;
                if (!step.tookEffect) {
                    // The step failed and nothing was journaled: the work may catch that and try it
                    // again. Its position stays taken: it was past the journal's end, where positions
                    // only need to grow.
                    names.remove(name);
                }
            }
        }
    }

    private Object decode(String name, byte[] result, JavaType type) {
        try {
            return parts.decodeSuccess(result, type);
        } catch (IdempotencyException e) {
            throw new StepMismatchException(stepKey, name, "the journaled result of step '" + name + "' cannot be"
                    + " read as " + type + "; was the step's result type changed while keys were in flight?", e);
        }
    }

    private void renewLapsedLease() {
        if (!leaseRanOut()) {
            return;
        }
        try {
            extendLease(lease);
        } catch (LeaseLostException e) {
            stop(e);
            throw e;
        }
    }

    private void record(String name, Object value) {
        save(name, next(name, encode(name, value)));
    }

    /**
     * Writes {@code next} as this execution's journal with its fencing token; only once the store
     * took it does it become the journal later steps build on. A refused write means the key was
     * taken over, and this execution runs no further step.
     */
    private void save(String name, StepJournal next) {
        byte[] stored = seal(name, next);
        synchronized (this) {
            checkpointed = true;
        }
        boolean saved;
        try {
            saved = checkpointWithRetries(stored);
        } catch (IllegalArgumentException e) {
            // The store's own size check disagreed with its declared limit.
            throw tooLarge(name, stored.length);
        }
        if (!saved) {
            throw stop(new LeaseLostException(stepKey, token));
        }
        synchronized (this) {
            journal = next;
        }
    }

    private byte[] encode(String name, Object value) {
        try {
            return parts.encodeSuccess(value);
        } catch (IdempotencyException e) {
            throw notJournaled(name, "its result cannot be journaled (" + e.getMessage() + ")", e);
        }
    }

    private StepJournal next(String name, byte[] result) {
        synchronized (this) {
            long size = journal.sizeWith(name, result) + (parts.sealer().encrypts() ? Sealer.maxOverhead() : 0);
            if (size > parts.maxOutcomeBytes()) {
                throw tooLarge(name, size);
            }
            return journal.append(name, result);
        }
    }

    private RuntimeException notJournaled(String name, String why, Throwable cause) {
        StepNotJournaledException failure = new StepNotJournaledException(stepKey, name, "step '" + name
                + "' of idempotency key " + stepKey.key() + " on " + stepKey.operation() + " ran, but " + why
                + "; its effect and those of earlier steps stand, and the key is failed finally so that no retry"
                + " repeats them", cause);
        LOG.log(Level.WARNING, "step ''{0}'' of key {1} ran, but {2}; the key is failed finally", name,
                stepKey.digest(), why);
        return failForGood(failure);
    }

    private synchronized RuntimeException failForGood(StepNotJournaledException failure) {
        if (notJournaledFailure == null) {
            notJournaledFailure = failure;
        }
        return stop(failure);
    }

    /**
     * An atomic step's action failed. Once it asked for its journal its transaction may have
     * committed (a failure after the commit, or a commit whose answer was lost), so this
     * execution's view of the journal can no longer be trusted: no later step may run. A
     * retry claims the key again and reads what the store holds.
     */
    private Exception stopIfAsked(Pending pending, Throwable failure) {
        if (pending.next != null) {
            stop(failure instanceof RuntimeException ? (RuntimeException) failure
                    : new IllegalStateException("atomic step '" + pending.name + "' failed after asking for its"
                            + " journal; no later step of this execution runs", failure));
        }
        if (failure instanceof Error) {
            throw (Error) failure;
        }
        return (Exception) failure;
    }

    /** Confirms that an atomic step's action committed the journal it was given. */
    private void confirm(String name, Pending pending, Object value) {
        if (pending.next == null) {
            throw notJournaled(name, "its atomic action returned without asking for its journal entry"
                    + " (Checkpoint.journalWith), so the entry cannot be on record", null);
        }
        if (!Arrays.equals(encode(name, value), pending.result)) {
            throw notJournaled(name, "its atomic action returned another result than the one it journaled", null);
        }
        StoredRecord now;
        try {
            now = parts.store().find(stepKey).orElse(null);
        } catch (StoreUnavailableException e) {
            throw stop(e);
        }
        if (now == null || now.fencingToken() != token) {
            throw stop(new LeaseLostException(stepKey, token));
        }
        if (!Arrays.equals(now.journal(), pending.stored)) {
            throw notJournaled(name, "its atomic action returned without committing its journal entry (save"
                    + " Checkpoint.journalWith(result) with the store's checkpointInTransaction or checkpointWithin)",
                    null);
        }
        synchronized (this) {
            journal = pending.next;
        }
    }

    /** The checkpoint handed to an atomic step: remembers the last journal it built. */
    private final class Pending implements AtomicStepAction.Checkpoint {
        private final String name;
        private volatile byte[] result;
        private volatile StepJournal next;
        private volatile byte[] stored;

        Pending(String name) {
            this.name = name;
        }

        @Override
        public long fencingToken() {
            return token;
        }

        @Override
        public byte[] journalWith(Object value) {
            byte[] encoded = encode(name, value);
            StepJournal built = next(name, encoded);
            byte[] sealed = seal(name, built);
            result = encoded;
            next = built;
            stored = sealed;
            synchronized (StepContext.this) {
                // The action may commit it from here on.
                checkpointed = true;
            }
            return sealed;
        }
    }

    private RuntimeException tooLarge(String name, long size) {
        StepNotJournaledException e = new StepJournalTooLargeException(stepKey, name, size, parts.maxOutcomeBytes());
        LOG.log(Level.WARNING, "step ''{0}'' of key {1} ran, but the journal with its result is {2} bytes, over the"
                + " limit of {3}; the key is failed finally", name, stepKey.digest(), size, parts.maxOutcomeBytes());
        return failForGood(e);
    }

    private synchronized RuntimeException stop(RuntimeException cause) {
        if (stopped == null) {
            stopped = cause;
        }
        return cause;
    }

    private boolean checkpointWithRetries(byte[] bytes) {
        return parts.direct().checkpoint(stepKey, token, bytes);
    }

    static String stepDownstreamKey(IdempotencyKey key, String step) {
        MessageDigest sha = Fingerprinter.sha256();
        sha.update("idem-downstream-step/v1\0".getBytes(StandardCharsets.US_ASCII));
        sha.update(key.scope().getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(key.operation().getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(key.key().getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(step.getBytes(StandardCharsets.UTF_8));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(sha.digest());
    }
}
