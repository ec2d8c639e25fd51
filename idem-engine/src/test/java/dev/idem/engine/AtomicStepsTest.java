package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.store.RecordState;
import dev.idem.engine.internal.StepJournal;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Atomic steps ({@link ExecutionContext#atomicStep}): the action saves its own journal entry.
 * The memory store has no transactions, so "the transaction" here is the action's fenced
 * checkpoint call; store-jdbc's AtomicStepTransactionTest runs the same contract with real
 * business writes.
 */
class AtomicStepsTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
    private final IdempotencyEngine engine = engine();
    private final List<String> effects = new ArrayList<>();

    private IdempotencyEngine engine() {
        return IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).lease(LEASE).ttl(Duration.ofHours(1)).build();
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant", "order", k);
    }

    /** An atomic charge that commits its effect and its journal entry together, as a transaction would. */
    private String charge(ExecutionContext ctx, AtomicStepAction.Checkpoint cp) {
        String result = "charge-by-" + ctx.attempt();
        if (!store.checkpoint(ctx.key(), cp.fencingToken(), cp.journalWith(result))) {
            throw new LeaseLostException(ctx.key(), cp.fencingToken());
        }
        effects.add("charge@" + ctx.attempt());
        return result;
    }

    @Test
    void anAtomicStepIsJournaledByItsActionAndARetryReplaysItWithoutRunningIt() {
        IdempotencyKey k = key("a1");
        Work<String> work = ctx -> {
            String c = ctx.atomicStep("charge", String.class, cp -> charge(ctx, cp));
            ctx.step("ship", () -> {
                if (ctx.attempt() == 1) {
                    throw new IllegalStateException("carrier timed out");
                }
                effects.add("ship@" + ctx.attempt());
            });
            return c;
        };
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work)).hasMessage("carrier timed out");
        assertThat(StepJournal.decode(store.find(k).orElseThrow().journal()).entries())
                .extracting(StepJournal.Entry::name).containsExactly("charge");
        StepsTest.assertHandedBack(store, clock, k);

        Result<String> retry = engine.execute(k, "{}", String.class, work);

        assertThat(retry.value()).isEqualTo("charge-by-1");
        assertThat(effects).containsExactly("charge@1", "ship@2");
        assertThat(engine.execute(k, "{}", String.class, work).value()).isEqualTo("charge-by-1");
    }

    @Test
    void anActionThatNeverAsksForItsJournalFailsTheKeyFinallyAndNoRetryRepeatsIt() {
        IdempotencyKey k = key("a2");
        Work<String> work = ctx -> ctx.atomicStep("charge", String.class, cp -> {
            effects.add("charge@" + ctx.attempt());
            return "charged";
        });
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work))
                .satisfies(t -> assertThat(StepsTest.settledBy(t)).isInstanceOf(StepNotJournaledException.class)
                        .hasMessageContaining("without asking"));
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work))
                .isInstanceOf(ReplayedFailureException.class);
        assertThat(effects).containsExactly("charge@1");
        assertThat(store.find(k).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void anActionThatBuildsItsJournalButDoesNotSaveItFailsTheKeyFinally() {
        IdempotencyKey k = key("a3");
        Work<String> work = ctx -> ctx.atomicStep("charge", String.class, cp -> {
            cp.journalWith("charged");
            effects.add("charge@" + ctx.attempt());
            return "charged";
        });
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work))
                .satisfies(t -> assertThat(StepsTest.settledBy(t)).isInstanceOf(StepNotJournaledException.class)
                        .hasMessageContaining("without committing"));
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work))
                .isInstanceOf(ReplayedFailureException.class);
        assertThat(effects).containsExactly("charge@1");
    }

    @Test
    void anActionThatReturnsAnotherResultThanItJournaledFailsTheKeyFinally() {
        IdempotencyKey k = key("a4");
        Work<String> work = ctx -> ctx.atomicStep("charge", String.class, cp -> {
            charge(ctx, cp);
            return "something else";
        });
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work))
                .satisfies(t -> assertThat(StepsTest.settledBy(t)).isInstanceOf(StepNotJournaledException.class)
                        .hasMessageContaining("another result"));
    }

    @Test
    void aRefusedCheckpointIsThisCallsLeaseLossAndNoLaterStepRuns() {
        IdempotencyKey k = key("a5");
        IdempotencyEngine other = engine();
        Work<String> work = ctx -> {
            String c = ctx.atomicStep("charge", String.class, cp -> {
                if (ctx.attempt() == 1) {
                    // This worker stalls before its transaction; another takes the key over and finishes.
                    clock.advance(LEASE.plusMillis(1));
                    other.execute(k, "{}", String.class, c2 -> c2.atomicStep("charge", String.class,
                            cp2 -> charge(c2, cp2)));
                }
                return charge(ctx, cp);
            });
            ctx.step("ship", () -> effects.add("ship@" + ctx.attempt()));
            return c;
        };
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work)).isInstanceOf(LeaseLostException.class);

        assertThat(effects).containsExactly("charge@2");
        assertThat(engine.execute(k, "{}", String.class, work).value()).isEqualTo("charge-by-2");
    }

    @Test
    void aFailureBeforeTheActionAsksForItsJournalLetsTheWorkTryTheStepAgain() throws Exception {
        IdempotencyKey k = key("a6");
        int[] tries = {0};
        Result<String> r = engine.execute(k, "{}", String.class, ctx -> {
            for (;;) {
                try {
                    return ctx.atomicStep("charge", String.class, cp -> {
                        if (tries[0]++ == 0) {
                            throw new IllegalStateException("connection reset before the transaction");
                        }
                        return charge(ctx, cp);
                    });
                } catch (IllegalStateException e) {
                    // the transaction never started: trying the step again is safe
                }
            }
        });
        assertThat(r.value()).isEqualTo("charge-by-1");
        assertThat(tries[0]).isEqualTo(2);
        assertThat(effects).containsExactly("charge@1");
    }

    @Test
    void aFailureAfterTheActionAskedForItsJournalStopsEveryLaterStepOfThisExecution() {
        IdempotencyKey k = key("a7");
        List<String> later = new ArrayList<>();
        Work<String> work = ctx -> {
            try {
                ctx.atomicStep("charge", String.class, cp -> {
                    cp.journalWith("charged");
                    throw new IllegalStateException("commit answer lost");
                });
            } catch (IllegalStateException e) {
                // the work swallows it and carries on: the engine must not let it
            }
            return ctx.step("ship", String.class, () -> {
                later.add("ship");
                return "shipped";
            });
        };
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work)).hasMessage("commit answer lost");
        assertThat(later).isEmpty();
        // Its transaction may have committed a journal entry: handed back, so the fingerprint stays bound.
        StepsTest.assertHandedBack(store, clock, k);
    }

    @Test
    void aResultTooLargeForTheJournalIsRefusedBeforeTheActionCanSaveIt() {
        MemoryIdempotencyStore small = MemoryIdempotencyStore.builder().clock(clock).maxOutcomeBytes(64).build();
        IdempotencyEngine tight = IdempotencyEngine.builder().store(small).ticker(ClockTicker.of(clock)).lease(LEASE).build();
        IdempotencyKey k = key("a8");
        Work<String> work = ctx -> ctx.atomicStep("charge", String.class, cp -> {
            byte[] journal = cp.journalWith("x".repeat(200));
            effects.add("saved " + journal.length);
            return "x".repeat(200);
        });
        assertThatThrownBy(() -> tight.execute(k, "{}", String.class, work))
                .satisfies(t -> assertThat(StepsTest.settledBy(t)).isInstanceOf(StepJournalTooLargeException.class));
        assertThat(effects).isEmpty();
    }
}
