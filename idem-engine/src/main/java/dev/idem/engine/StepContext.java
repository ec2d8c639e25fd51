package dev.idem.engine;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.internal.Fingerprinter;
import dev.idem.engine.internal.StepJournal;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
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
 * Before a step runs, a lease that has lapsed by the engine's clock is renewed (fenced), so
 * a worker that stalled between steps learns it was taken over before it repeats an effect.
 *
 * <p>Steps run one at a time, in the work's thread; nesting or overlapping them is an error.
 */
abstract class StepContext implements ExecutionContext {
    private static final System.Logger LOG = System.getLogger(IdempotencyEngine.class.getName());

    private final IdempotencyEngine engine;
    private final IdempotencyKey stepKey;
    private final long token;
    private final Duration lease;
    private final byte[] claimedJournal;
    private final Set<String> names = new HashSet<>();
    private StepJournal journal;
    private int position;
    private boolean running;
    private RuntimeException stopped;

    StepContext(IdempotencyEngine engine, IdempotencyKey key, StoredRecord claim, Duration lease) {
        this.engine = engine;
        this.stepKey = key;
        this.token = claim.fencingToken();
        this.lease = lease;
        this.claimedJournal = claim.journal();
    }

    @Override
    public final <R> R step(String name, Class<R> type, StepAction<? extends R> action) throws Exception {
        Objects.requireNonNull(type, "type");
        return run(name, engine.codec.mapper().constructType(type), Objects.requireNonNull(action, "action"));
    }

    @Override
    public final <R> R step(String name, TypeReference<R> type, StepAction<? extends R> action) throws Exception {
        Objects.requireNonNull(type, "type");
        return run(name, engine.codec.mapper().constructType(type), Objects.requireNonNull(action, "action"));
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
    public final String downstreamKey(String stepName) {
        return stepDownstreamKey(stepKey, StepJournal.checkName(stepName));
    }

    @SuppressWarnings("unchecked")
    private <R> R run(String name, JavaType type, StepAction<? extends R> action) throws Exception {
        StepJournal.checkName(name);
        StepJournal.Entry journaled;
        synchronized (this) {
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
            running = journaled == null;
        }
        if (journaled != null) {
            return type == null ? null : (R) decode(name, journaled.result(), type);
        }
        boolean ran = false;
        try {
            renewLapsedLease();
            R value = action.run();
            ran = true;
            record(name, value);
            return value;
        } catch (StoreUnavailableException e) {
            if (ran) {
                // The effect happened but may not be on record: no later step may build on it now.
                stop(e);
            }
            throw e;
        } finally {
            synchronized (this) {
                running = false;
                if (!ran) {
                    // The step failed and nothing was journaled: the work may catch that and try it again.
                    names.remove(name);
                    position--;
                }
            }
        }
    }

    private Object decode(String name, byte[] result, JavaType type) {
        try {
            return engine.codec.decodeSuccess(result, type);
        } catch (IdempotencyException e) {
            throw new StepMismatchException(stepKey, name, "the journaled result of step '" + name + "' cannot be"
                    + " read as " + type + "; was the step's result type changed while keys were in flight?", e);
        }
    }

    private void renewLapsedLease() {
        if (engine.clock.millis() < leaseDeadline().toEpochMilli()) {
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
        byte[] result;
        try {
            result = engine.codec.encodeSuccess(value);
        } catch (IdempotencyException e) {
            StepNotJournaledException failure = new StepNotJournaledException(stepKey, name, "step '" + name
                    + "' of idempotency key " + stepKey.key() + " on " + stepKey.operation() + " ran, but its result"
                    + " cannot be journaled (" + e.getMessage() + "); its effect and those of earlier steps stand,"
                    + " and the key is failed finally so that no retry repeats them", e);
            LOG.log(Level.WARNING, failure.getMessage());
            throw stop(failure);
        }
        StepJournal next;
        synchronized (this) {
            long size = journal.sizeWith(name, result);
            if (size > engine.maxOutcomeBytes) {
                throw tooLarge(name, size);
            }
            next = journal.append(name, result);
        }
        boolean saved;
        try {
            saved = checkpointWithRetries(next.bytes());
        } catch (IllegalArgumentException e) {
            // The store's own size check disagreed with its declared limit.
            throw tooLarge(name, next.bytes().length);
        }
        if (!saved) {
            throw stop(new LeaseLostException(stepKey, token));
        }
        synchronized (this) {
            journal = next;
        }
    }

    private RuntimeException tooLarge(String name, long size) {
        StepNotJournaledException e = new StepJournalTooLargeException(stepKey, name, size, engine.maxOutcomeBytes);
        LOG.log(Level.WARNING, e.getMessage());
        return stop(e);
    }

    private synchronized RuntimeException stop(RuntimeException cause) {
        if (stopped == null) {
            stopped = cause;
        }
        return cause;
    }

    private boolean checkpointWithRetries(byte[] bytes) {
        StoreUnavailableException last = null;
        for (int i = 0; i < engine.completeAttempts; i++) {
            try {
                return engine.store.checkpoint(stepKey, token, bytes);
            } catch (StoreUnavailableException e) {
                last = e;
                if (!e.retryable() || i + 1 == engine.completeAttempts) {
                    break;
                }
                try {
                    engine.sleeper.sleep(Duration.ofMillis(50L << i));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        throw last;
    }

    /**
     * The final failure the engine stores for {@code failure} whatever the classifier says,
     * or null: a step whose result could not be journaled must not run again.
     */
    static FailureDecision settledFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof StepNotJournaledException) {
                return FailureDecision.finalFailure(((StepNotJournaledException) t).code(), t.getMessage());
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
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
