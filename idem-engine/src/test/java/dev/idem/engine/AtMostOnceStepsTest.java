package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.time.Ticker;
import dev.idem.engine.internal.StepJournal;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * At-most-once steps on the memory store: the start marker is journaled (fenced) before the
 * action, an interrupted step is settled by its reconciler and never run blindly, an unknown
 * outcome fails the key finally, and a stale worker can neither start nor finish the step.
 * Deaths are injected: a worker's connection is cut, then an {@link Error} unwinds it.
 */
@Timeout(60)
class AtMostOnceStepsTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String REQUEST = "{\"amount\":100}";
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
    /** The bank's transfers, by reference: the effect that must not repeat. */
    private final List<String> transfers = new ArrayList<>();
    private final List<InterruptedStep> reconciled = new ArrayList<>();

    /** The worker died here. */
    static final class Died extends Error {
        private static final long serialVersionUID = 1L;

        Died() {
            super("worker died (injected)", null, false, false);
        }
    }

    /** One worker's connection: records the journals it wrote, runs hooks around checkpoints, can be cut. */
    final class Connection extends ForwardingIdempotencyStore {
        final List<byte[]> journals = new ArrayList<>();
        Runnable beforeCheckpoint = () -> { };
        Runnable afterCheckpoint = () -> { };
        boolean cut;

        Connection() {
            super(store);
        }

        void die() {
            cut = true;
            throw new Died();
        }

        @Override
        protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
            if (cut) {
                throw new StoreUnavailableException("connection cut: the worker died", null);
            }
            return call.get();
        }

        @Override
        public boolean checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            beforeCheckpoint.run();
            boolean saved = super.checkpoint(key, fencingToken, journal);
            if (saved) {
                journals.add(journal);
            }
            afterCheckpoint.run();
            return saved;
        }

        @Override
        public void close() {
        }
    }

    private IdempotencyEngine engine(IdempotencyStore s) {
        return engine(s, ClockTicker.of(clock));
    }

    private IdempotencyEngine engine(IdempotencyStore s, Ticker ticker) {
        return IdempotencyEngine.builder().store(s).ticker(ticker).lease(LEASE).ttl(Duration.ofHours(1)).build();
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant", "transfer", k);
    }

    private String wire(ExecutionContext ctx) {
        String reference = ctx.downstreamKey("wire");
        transfers.add(reference);
        return "tr-" + ctx.attempt();
    }

    /** Looks the transfer up at the bank by its reference. */
    private Reconciliation<String> lookUp(InterruptedStep step) {
        reconciled.add(step);
        long found = transfers.stream().filter(step.downstreamKey()::equals).count();
        return found > 0 ? Reconciliation.happened("tr-found") : Reconciliation.didNotHappen();
    }

    private Work<String> work(Runnable beforeWire, Runnable afterWire) {
        return ctx -> {
            String reserved = ctx.step("reserve", String.class, () -> "res-" + ctx.attempt());
            String wired = ctx.atMostOnceStep("wire", String.class, () -> {
                beforeWire.run();
                String t = wire(ctx);
                afterWire.run();
                return t;
            }, this::lookUp);
            return reserved + "," + wired;
        };
    }

    private static StepJournal.Entry last(byte[] journal) {
        List<StepJournal.Entry> entries = StepJournal.decode(journal).entries();
        return entries.get(entries.size() - 1);
    }

    private void lapse() {
        clock.advance(LEASE.plusMillis(1));
    }

    @Test
    void theStartIsJournaledBeforeTheActionAndItsResultAfter() {
        Connection c = new Connection();
        IdempotencyKey k = key("k1");
        List<byte[]> seenByTheAction = new ArrayList<>();
        Result<String> r = engine(c).execute(k, REQUEST, String.class, work(
                () -> seenByTheAction.add(store.find(k).orElseThrow().journal()), () -> { }));

        assertThat(r.value()).isEqualTo("res-1,tr-1");
        // reserve's result, wire's start marker, wire's result: one more write than a plain step.
        assertThat(c.journals).hasSize(3);
        assertThat(last(c.journals.get(1)).started()).isTrue();
        assertThat(last(c.journals.get(1)).startedBy()).isEqualTo(1);
        assertThat(seenByTheAction).singleElement().satisfies(j -> assertThat(last(j).started()).isTrue());
        assertThat(c.journals.get(1)[3]).as("a journal with a marker is version 2").isEqualTo((byte) 2);
        assertThat(c.journals.get(2)[3]).as("a journal without one stays version 1").isEqualTo((byte) 1);
        assertThat(last(c.journals.get(2)).started()).isFalse();
        assertThat(transfers).hasSize(1);
        assertThat(reconciled).isEmpty();
        assertThat(engine(store).execute(k, REQUEST, String.class, work(() -> { }, () -> { })).replayed()).isTrue();
    }

    @Test
    void aDeathBetweenTheMarkerAndTheEffectIsReconciledAsNotHappenedAndTheStepRunsOnce() {
        Connection first = new Connection();
        IdempotencyKey k = key("k2");
        assertThatThrownBy(() -> engine(first).execute(k, REQUEST, String.class, work(first::die, () -> { })))
                .isInstanceOf(Died.class);
        assertThat(store.find(k).orElseThrow().state()).as("a dead worker releases nothing")
                .isEqualTo(RecordState.IN_PROGRESS);
        lapse();

        Connection second = new Connection();
        Result<String> r = engine(second).execute(k, REQUEST, String.class, work(() -> { }, () -> { }));

        assertThat(r.value()).isEqualTo("res-1,tr-2");
        assertThat(r.attempt()).isEqualTo(2);
        assertThat(transfers).hasSize(1);
        assertThat(reconciled).singleElement().satisfies(step -> {
            assertThat(step.name()).isEqualTo("wire");
            assertThat(step.startedBy()).isEqualTo(1);
            assertThat(step.attempt()).isEqualTo(2);
            assertThat(step.key()).isEqualTo(k);
        });
        // The step ran again only after this attempt's own start marker was on record.
        assertThat(last(second.journals.get(0)).startedBy()).isEqualTo(2);
    }

    @Test
    void aDeathBetweenTheEffectAndItsJournalIsReconciledAsHappenedAndTheStepDoesNotRunAgain() {
        Connection first = new Connection();
        IdempotencyKey k = key("k3");
        assertThatThrownBy(() -> engine(first).execute(k, REQUEST, String.class, work(() -> { }, first::die)))
                .isInstanceOf(Died.class);
        lapse();

        Result<String> r = engine(store).execute(k, REQUEST, String.class, ctx -> {
            String done = work(() -> { }, () -> { }).execute(ctx);
            return done + "," + ctx.step("notify", String.class, () -> "sent");
        });

        assertThat(r.value()).isEqualTo("res-1,tr-found,sent");
        assertThat(transfers).hasSize(1);
        assertThat(reconciled).hasSize(1);
        Result<String> replay = engine(store).execute(k, REQUEST, String.class, work(() -> { }, () -> { }));
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(r.value());
        assertThat(reconciled).as("never called once the result is on record").hasSize(1);
    }

    @Test
    void aStepThatDiesAgainAfterNotHappenedIsReconciledAgainNamingTheLatestStart() {
        IdempotencyKey k = key("k4");
        Connection first = new Connection();
        assertThatThrownBy(() -> engine(first).execute(k, REQUEST, String.class, work(first::die, () -> { })))
                .isInstanceOf(Died.class);
        lapse();
        Connection second = new Connection();
        assertThatThrownBy(() -> engine(second).execute(k, REQUEST, String.class, work(second::die, () -> { })))
                .isInstanceOf(Died.class);
        lapse();

        Result<String> r = engine(store).execute(k, REQUEST, String.class, work(() -> { }, () -> { }));

        assertThat(r.value()).isEqualTo("res-1,tr-3");
        assertThat(reconciled).extracting(InterruptedStep::startedBy).containsExactly(1, 2);
        assertThat(transfers).hasSize(1);
    }

    @Test
    void anUnknownOutcomeFailsTheKeyFinallyNamingTheStepAndTheAttemptAndNothingRunsAgain() {
        IdempotencyKey k = key("k5");
        Connection first = new Connection();
        assertThatThrownBy(() -> engine(first).execute(k, REQUEST, String.class, work(() -> { }, first::die)))
                .isInstanceOf(Died.class);
        lapse();
        List<String> ran = new ArrayList<>();
        Work<String> cannotTell = ctx -> ctx.atMostOnceStep("reserve", String.class, () -> "res", s -> {
            throw new AssertionError("a finished step is never reconciled");
        }) + ctx.atMostOnceStep("wire", String.class, () -> {
            ran.add("wire");
            return "tr";
        }, s -> {
            reconciled.add(s);
            return Reconciliation.unknown("the bank's lookup is down for maintenance");
        });

        assertThatThrownBy(() -> engine(store).execute(k, REQUEST, String.class, cannotTell))
                .isInstanceOf(StepOutcomeUnknownException.class)
                .hasMessageContaining("'wire'").hasMessageContaining("attempt 1")
                .hasMessageContaining("the bank's lookup is down for maintenance")
                .satisfies(e -> {
                    StepOutcomeUnknownException unknown = (StepOutcomeUnknownException) e;
                    assertThat(unknown.step()).isEqualTo("wire");
                    assertThat(unknown.startedBy()).isEqualTo(1);
                    assertThat(unknown.attempt()).isEqualTo(2);
                    assertThat(unknown.code()).isEqualTo(StepOutcomeUnknownException.CODE);
                });
        lapse();
        assertThatThrownBy(() -> engine(store).execute(k, REQUEST, String.class, cannotTell))
                .isInstanceOf(ReplayedFailureException.class)
                .satisfies(e -> assertThat(((ReplayedFailureException) e).code())
                        .isEqualTo(StepOutcomeUnknownException.CODE))
                .hasMessageContaining("'wire'").hasMessageContaining("attempt 1");
        assertThat(ran).isEmpty();
        assertThat(reconciled).hasSize(1);
        assertThat(store.find(k).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void aStaleWorkerCannotStartTheStepItsMarkerIsRefused() {
        IdempotencyKey k = key("k6");
        // A ticker that stands still: the engine cannot tell its lease ran out, only the fence stops it.
        IdempotencyEngine stale = engine(store, () -> 0L);
        Work<String> work = ctx -> {
            String reserved = ctx.step("reserve", String.class, () -> "res-" + ctx.attempt());
            if (ctx.attempt() == 1) {
                lapse();
                // Another worker takes over and dies after journaling nothing new: the key is IN_PROGRESS, not ours.
                Connection other = new Connection();
                assertThatThrownBy(() -> engine(other).execute(k, REQUEST, String.class, c -> {
                    c.step("reserve", String.class, () -> "res-" + c.attempt());
                    other.die();
                    return "unreached";
                })).isInstanceOf(Died.class);
            }
            return reserved + ctx.atMostOnceStep("wire", String.class, () -> wire(ctx), this::lookUp);
        };

        assertThatThrownBy(() -> stale.execute(k, REQUEST, String.class, work)).isInstanceOf(LeaseLostException.class);
        assertThat(transfers).isEmpty();
        assertThat(StepJournal.decode(store.find(k).orElseThrow().journal()).marker()).isNull();
    }

    @Test
    void aStaleWorkerCannotFinishTheStepItsResultIsRefusedAndTheTakerOverReconciles() {
        IdempotencyKey k = key("k7");
        Result<?>[] takenOver = new Result<?>[1];
        IdempotencyEngine stale = engine(store, () -> 0L);

        assertThatThrownBy(() -> stale.execute(k, REQUEST, String.class, work(() -> { }, () -> {
            lapse();
            takenOver[0] = engine(store).execute(k, REQUEST, String.class, work(() -> { }, () -> { }));
        }))).isInstanceOf(LeaseLostException.class);

        assertThat(takenOver[0].value()).isEqualTo("res-1,tr-found");
        assertThat(transfers).hasSize(1);
        assertThat(reconciled).hasSize(1);
        assertThat(engine(store).execute(k, REQUEST, String.class, work(() -> { }, () -> { })).value())
                .isEqualTo("res-1,tr-found");
    }

    @Test
    void aWorkerWhoseLeaseLapsedWhileItsMarkerWasWrittenDoesNotRunTheAction() {
        IdempotencyKey k = key("k8");
        Connection first = new Connection();
        Result<?>[] takenOver = new Result<?>[1];
        first.afterCheckpoint = () -> {
            byte[] journal = store.find(k).orElseThrow().journal();
            if (StepJournal.decode(journal).marker() != null && takenOver[0] == null) {
                // The marker landed, then the worker stalls past its lease and another takes over.
                lapse();
                takenOver[0] = engine(store).execute(k, REQUEST, String.class, work(() -> { }, () -> { }));
            }
        };

        assertThatThrownBy(() -> engine(first).execute(k, REQUEST, String.class, work(() -> { }, () -> { })))
                .isInstanceOf(LeaseLostException.class);

        assertThat(takenOver[0].value()).isEqualTo("res-1,tr-2");
        assertThat(transfers).as("the stale worker's action never ran").hasSize(1);
        assertThat(reconciled).singleElement().satisfies(s -> assertThat(s.startedBy()).isEqualTo(1));
    }

    @Test
    void aFailedActionLeavesItsMarkerStopsTheExecutionAndTheRetryReconciles() {
        IdempotencyKey k = key("k9");
        List<String> after = new ArrayList<>();
        Work<String> work = ctx -> {
            String wired;
            try {
                wired = ctx.atMostOnceStep("wire", String.class, () -> {
                    if (ctx.attempt() == 1) {
                        throw new IllegalStateException("bank timed out");
                    }
                    return wire(ctx);
                }, this::lookUp);
            } catch (IllegalStateException e) {
                // The work tries to carry on: no later step may run before the step is settled.
                return ctx.step("notify", String.class, () -> {
                    after.add("notify");
                    return "x";
                });
            }
            return wired;
        };

        assertThatThrownBy(() -> engine(store).execute(k, REQUEST, String.class, work))
                .hasMessage("bank timed out");
        assertThat(after).isEmpty();
        StepsTest.assertHandedBack(store, clock, k);

        assertThat(engine(store).execute(k, REQUEST, String.class, work).value()).isEqualTo("tr-2");
        assertThat(reconciled).singleElement().satisfies(s -> assertThat(s.startedBy()).isEqualTo(1));
        assertThat(transfers).hasSize(1);
    }

    @Test
    void aReconcilerThatThrowsSettlesNothingAndTheNextAttemptAsksAgain() {
        IdempotencyKey k = key("k10");
        Connection first = new Connection();
        assertThatThrownBy(() -> engine(first).execute(k, REQUEST, String.class, work(first::die, () -> { })))
                .isInstanceOf(Died.class);
        lapse();
        boolean[] bankDown = {true};
        Work<String> work = ctx -> ctx.atMostOnceStep("reserve", String.class, () -> "res-" + ctx.attempt(),
                s -> Reconciliation.didNotHappen()) + "," + ctx.atMostOnceStep("wire", String.class, () -> wire(ctx), s -> {
                    if (bankDown[0]) {
                        throw new IllegalStateException("bank unreachable");
                    }
                    return lookUp(s);
                });

        assertThatThrownBy(() -> engine(store).execute(k, REQUEST, String.class, work))
                .hasMessage("bank unreachable");
        StepsTest.assertHandedBack(store, clock, k);
        bankDown[0] = false;

        assertThat(engine(store).execute(k, REQUEST, String.class, work).value()).isEqualTo("res-1,tr-3");
        assertThat(transfers).hasSize(1);
    }

    @Test
    void aReconcilerThatAnswersNullIsAProgrammingError() {
        IdempotencyKey k = key("k11");
        Connection first = new Connection();
        assertThatThrownBy(() -> engine(first).execute(k, REQUEST, String.class, work(first::die, () -> { })))
                .isInstanceOf(Died.class);
        lapse();

        assertThatThrownBy(() -> engine(store).execute(k, REQUEST, String.class, ctx -> ctx.step("reserve",
                String.class, () -> "r") + ctx.atMostOnceStep("wire", String.class, () -> wire(ctx), s -> null)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("returned null");
        assertThat(transfers).isEmpty();
    }

    @Test
    void aPlainStepThatFindsAStartMarkerIsAMismatchNotABlindRun() {
        IdempotencyKey k = key("k12");
        Connection first = new Connection();
        assertThatThrownBy(() -> engine(first).execute(k, REQUEST, String.class, work(() -> { }, first::die)))
                .isInstanceOf(Died.class);
        lapse();

        assertThatThrownBy(() -> engine(store).execute(k, REQUEST, String.class, ctx -> ctx.step("reserve",
                String.class, () -> "r") + ctx.step("wire", String.class, () -> wire(ctx))))
                .isInstanceOf(StepMismatchException.class).hasMessageContaining("at-most-once");
        assertThat(transfers).hasSize(1);
    }

    @Test
    void aHappenedResultThatCannotBeJournaledFailsTheKeyFinally() {
        IdempotencyKey k = key("k13");
        Connection first = new Connection();
        assertThatThrownBy(() -> engine(first).execute(k, REQUEST, String.class, work(() -> { }, first::die)))
                .isInstanceOf(Died.class);
        lapse();
        IdempotencyEngine small = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).lease(LEASE)
                .ttl(Duration.ofHours(1)).maxOutcomeBytes(1024).build();

        assertThatThrownBy(() -> small.execute(k, REQUEST, String.class, ctx -> ctx.step("reserve", String.class,
                () -> "r") + ctx.atMostOnceStep("wire", String.class, () -> wire(ctx),
                        s -> Reconciliation.happened("x".repeat(2048)))))
                .satisfies(t -> assertThat(StepsTest.settledBy(t)).isInstanceOf(StepJournalTooLargeException.class));
        assertThat(transfers).hasSize(1);
    }

    @Test
    void genericResultsAndTheAsyncCallTakeTheSameMode() throws Exception {
        IdempotencyKey k = key("k14");
        Connection first = new Connection();
        IdempotencyEngine dying = IdempotencyEngine.builder().store(first).ticker(ClockTicker.of(clock)).lease(LEASE)
                .ttl(Duration.ofHours(1)).build();
        TypeReference<List<String>> listOfStrings = new TypeReference<>() { };
        AsyncWork<List<String>> work = ctx -> java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return ctx.atMostOnceStep("wire", listOfStrings, () -> {
                    String t = wire(ctx);
                    if (ctx.attempt() == 1) {
                        first.die();
                    }
                    return List.of(t);
                }, s -> {
                    reconciled.add(s);
                    return Reconciliation.happened(List.of("found"));
                });
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        assertThatThrownBy(() -> dying.executeAsync(k, REQUEST, listOfStrings, work).get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(Died.class);
        lapse();
        Result<List<String>> r = engine(store).executeAsync(k, REQUEST, listOfStrings, work).get(30, TimeUnit.SECONDS);

        assertThat(r.value()).containsExactly("found");
        assertThat(transfers).hasSize(1);
        assertThat(reconciled).singleElement().satisfies(s -> assertThat(s.startedBy()).isEqualTo(1));
    }

    @Test
    void argumentsAreChecked() {
        IdempotencyKey k = key("k15");
        assertThatThrownBy(() -> engine(store).execute(k, REQUEST, String.class, ctx -> ctx.atMostOnceStep("wire",
                String.class, () -> "x", null))).isInstanceOf(NullPointerException.class).hasMessage("reconcile");
        assertThatThrownBy(() -> engine(store).execute(key("k16"), REQUEST, String.class, ctx -> ctx.atMostOnceStep(
                "wire", String.class, null, s -> Reconciliation.didNotHappen())))
                .isInstanceOf(NullPointerException.class).hasMessage("action");
        assertThatThrownBy(() -> Reconciliation.unknown(null)).isInstanceOf(NullPointerException.class);
        assertThat(Reconciliation.happened("a")).isEqualTo(Reconciliation.happened("a"))
                .hasSameHashCodeAs(Reconciliation.happened("a")).isNotEqualTo(Reconciliation.didNotHappen());
        assertThat(Reconciliation.unknown("why").toString()).contains("why");
    }
}
