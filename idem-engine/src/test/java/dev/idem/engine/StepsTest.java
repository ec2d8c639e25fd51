package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.internal.StepJournal;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StepsTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();
    private final IdempotencyEngine engine = engine(store);
    private final List<String> effects = new ArrayList<>();

    private IdempotencyEngine engine(MemoryIdempotencyStore s) {
        return IdempotencyEngine.builder().store(s).ticker(ClockTicker.of(clock)).lease(LEASE).ttl(Duration.ofHours(1)).build();
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant", "order", k);
    }

    private String effect(String step, ExecutionContext ctx) {
        effects.add(step + "@" + ctx.attempt());
        return step + "-by-" + ctx.attempt();
    }

    /** The step failure itself, whether the engine hands it to the first caller as it is or as the cause. */
    static Throwable settledBy(Throwable t) {
        return t instanceof StepNotJournaledException ? t : t.getCause();
    }

    /**
     * A key whose journal holds steps is handed back after a transient failure, not released:
     * still IN_PROGRESS with its fingerprint, its lease ending 1 ms later; then the millisecond passes.
     */
    static void assertHandedBack(MemoryIdempotencyStore store, MutableClock clock, IdempotencyKey k) {
        StoredRecord r = store.find(k).orElseThrow();
        assertThat(r.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(r.leaseExpiresAt()).isEqualTo(clock.instant().plus(Ending.HAND_BACK));
        clock.advance(Ending.HAND_BACK);
    }

    private StepJournal journal(IdempotencyKey key) {
        return StepJournal.decode(store.find(key).orElseThrow().journal());
    }

    @Test
    void aTransientFailureKeepsFinishedStepsAndTheRetryResumesAfterThem() {
        IdempotencyKey k = key("k1");
        Work<String> work = ctx -> {
            String a = ctx.step("reserve", String.class, () -> effect("reserve", ctx));
            String b = ctx.step("charge", String.class, () -> {
                if (ctx.attempt() == 1) {
                    throw new IllegalStateException("provider timed out");
                }
                return effect("charge", ctx);
            });
            ctx.step("ship", () -> effect("ship", ctx));
            return a + "," + b;
        };
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work)).hasMessage("provider timed out");
        assertThat(journal(k).entries()).extracting(StepJournal.Entry::name).containsExactly("reserve");
        assertHandedBack(store, clock, k);

        Result<String> retry = engine.execute(k, "{}", String.class, work);
        Result<String> replay = engine.execute(k, "{}", String.class, work);

        assertThat(retry.value()).isEqualTo("reserve-by-1,charge-by-2");
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(retry.value());
        assertThat(effects).containsExactly("reserve@1", "charge@2", "ship@2");
        assertThat(store.find(k).orElseThrow().journal()).isNull();
    }

    @Test
    void aTakerOverReplaysJournaledStepsAndTheStaleWorkerCannotJournalItsStep() {
        IdempotencyKey k = key("k2");
        IdempotencyEngine other = engine(store);
        Result<?>[] takeover = new Result<?>[1];
        Work<String> work = ctx -> {
            String a = ctx.step("reserve", String.class, () -> effect("reserve", ctx));
            String b = ctx.step("charge", String.class, () -> {
                String r = effect("charge", ctx);
                if (ctx.attempt() == 1) {
                    // This worker stalls mid-step; its lease lapses and another worker takes over.
                    clock.advance(LEASE.plusMillis(1));
                    takeover[0] = other.execute(k, "{}", String.class, c -> c.step("reserve", String.class,
                            () -> effect("reserve", c)) + "," + c.step("charge", String.class, () -> effect("charge", c)));
                }
                return r;
            });
            return a + "," + b;
        };
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work)).isInstanceOf(LeaseLostException.class);

        assertThat(takeover[0].value()).isEqualTo("reserve-by-1,charge-by-2");
        assertThat(effects).containsExactly("reserve@1", "charge@1", "charge@2");
        assertThat(engine.execute(k, "{}", String.class, work).value()).isEqualTo("reserve-by-1,charge-by-2");
    }

    @Test
    void aWorkerThatStalledBetweenStepsLearnsOfTheTakeoverBeforeItsNextStepRuns() {
        IdempotencyKey k = key("k3");
        IdempotencyEngine other = engine(store);
        Work<String> work = ctx -> {
            String a = ctx.step("reserve", String.class, () -> effect("reserve", ctx));
            if (ctx.attempt() == 1) {
                clock.advance(LEASE.plusMillis(1));
                other.execute(k, "{}", String.class, c -> c.step("reserve", String.class, () -> effect("reserve", c))
                        + c.step("charge", String.class, () -> effect("charge", c)));
            }
            return a + ctx.step("charge", String.class, () -> effect("charge", ctx));
        };
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work)).isInstanceOf(LeaseLostException.class);
        assertThat(effects).containsExactly("reserve@1", "charge@2");
    }

    @Test
    void aLapsedLeaseNobodyTookOverIsRenewedBeforeTheNextStep() {
        IdempotencyKey k = key("k4");
        Result<String> r = engine.execute(k, "{}", String.class, ctx -> {
            ctx.step("reserve", () -> effect("reserve", ctx));
            clock.advance(LEASE.plusMillis(1));
            ctx.step("charge", () -> effect("charge", ctx));
            assertThat(ctx.leaseDeadline()).isAfter(clock.instant());
            return "ok";
        });
        assertThat(r.stored()).isTrue();
        assertThat(effects).containsExactly("reserve@1", "charge@1");
    }

    @Test
    void reusingAStepNameIsAMismatch() {
        IdempotencyKey k = key("k5");
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, ctx -> {
            ctx.step("reserve", () -> effect("reserve", ctx));
            ctx.step("reserve", () -> effect("reserve", ctx));
            return "never";
        })).isInstanceOf(StepMismatchException.class).hasMessageContaining("used twice");
        assertThat(effects).containsExactly("reserve@1");
    }

    @Test
    void stepsInAnotherOrderThanTheJournalAreAMismatchAndTheJournalIsKept() {
        IdempotencyKey k = key("k6");
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, ctx -> {
            ctx.step("reserve", () -> effect("reserve", ctx));
            throw new IllegalStateException("transient");
        })).hasMessage("transient");
        assertHandedBack(store, clock, k);
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, ctx -> {
            ctx.step("charge", () -> effect("charge", ctx));
            return "never";
        })).isInstanceOf(StepMismatchException.class)
                .hasMessageContaining("step 1 of order is 'charge' but the key's journal recorded 'reserve'");
        assertThat(effects).containsExactly("reserve@1");
        assertThat(journal(k).entries()).extracting(StepJournal.Entry::name).containsExactly("reserve");
    }

    @Test
    void aJournaledResultOfAnotherShapeIsAMismatch() {
        IdempotencyKey k = key("k7");
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, ctx -> {
            ctx.step("reserve", String.class, () -> "not a number");
            throw new IllegalStateException("transient");
        })).hasMessage("transient");
        assertHandedBack(store, clock, k);
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, ctx ->
                "" + ctx.step("reserve", Integer.class, () -> 1)))
                .isInstanceOf(StepMismatchException.class).hasMessageContaining("cannot be read as");
    }

    @Test
    void aFailedStepCanBeTriedAgainInTheSameExecution() {
        IdempotencyKey k = key("k8");
        int[] tries = new int[1];
        Result<Integer> r = engine.execute(k, "{}", Integer.class, ctx -> {
            for (int i = 0; ; i++) {
                try {
                    return ctx.step("charge", Integer.class, () -> {
                        if (++tries[0] < 3) {
                            throw new java.io.IOException("flaky");
                        }
                        return tries[0];
                    });
                } catch (java.io.IOException e) {
                    // try again
                }
            }
        });
        assertThat(r.value()).isEqualTo(3);
    }

    @Test
    void aJournalOverTheStoreLimitFailsTheKeyFinallySoTheStepNeverRepeats() {
        MemoryIdempotencyStore small = MemoryIdempotencyStore.builder().clock(clock).maxOutcomeBytes(1024).build();
        IdempotencyEngine e = engine(small);
        IdempotencyKey k = key("k9");
        Work<String> work = ctx -> {
            ctx.step("reserve", String.class, () -> effect("reserve", ctx) + "x".repeat(2000));
            ctx.step("charge", () -> effect("charge", ctx));
            return "never";
        };
        assertThatThrownBy(() -> e.execute(k, "{}", String.class, work))
                .isInstanceOf(FinalFailureException.class).hasStackTraceContaining("step 'reserve'")
                .satisfies(t -> assertThat(settledBy(t)).isInstanceOf(StepJournalTooLargeException.class))
                .extracting(t -> ((FinalFailureException) t).code()).isEqualTo(StepJournalTooLargeException.CODE);
        assertThatThrownBy(() -> e.execute(k, "{}", String.class, work))
                .isInstanceOf(ReplayedFailureException.class).hasMessageContaining(StepJournalTooLargeException.CODE);
        assertThat(effects).containsExactly("reserve@1");
    }

    @Test
    void aResultThatCannotBeWrittenFailsTheKeyFinally() {
        IdempotencyKey k = key("k10");
        Work<String> work = ctx -> {
            ctx.step("reserve", Object.class, () -> {
                effect("reserve", ctx);
                return new Object();
            });
            return "never";
        };
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work))
                .isInstanceOf(FinalFailureException.class)
                .satisfies(t -> assertThat(settledBy(t)).isInstanceOf(StepNotJournaledException.class))
                .extracting(t -> ((FinalFailureException) t).code()).isEqualTo(StepNotJournaledException.CODE);
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work))
                .isInstanceOf(ReplayedFailureException.class).hasMessageContaining(StepNotJournaledException.CODE);
        assertThat(effects).containsExactly("reserve@1");
    }

    @Test
    void genericStepResultsRoundTripThroughTheJournal() {
        IdempotencyKey k = key("k11");
        TypeReference<Map<String, List<Integer>>> type = new TypeReference<>() { };
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, ctx -> {
            ctx.step("lines", type, () -> Map.of("a", List.of(1, 2)));
            throw new IllegalStateException("transient");
        })).hasMessage("transient");
        assertHandedBack(store, clock, k);
        Result<String> r = engine.execute(k, "{}", String.class, ctx ->
                ctx.step("lines", type, () -> Map.of("b", List.of(3))).toString());
        assertThat(r.value()).isEqualTo("{a=[1, 2]}");
    }

    @Test
    void downstreamKeysAreStablePerStepAndDistinctAcrossStepsAndKeys() {
        String[] seen = new String[4];
        engine.execute(key("k12"), "{}", String.class, ctx -> {
            seen[0] = ctx.downstreamKey("charge");
            seen[1] = ctx.downstreamKey("ship");
            seen[2] = ctx.downstreamKey();
            return "";
        });
        engine.execute(key("k13"), "{}", String.class, ctx -> {
            seen[3] = ctx.downstreamKey("charge");
            return "";
        });
        assertThat(seen).doesNotHaveDuplicates();
        assertThat(seen[0]).hasSize(43).matches("[A-Za-z0-9_-]+")
                .isEqualTo(StepContext.stepDownstreamKey(key("k12"), "charge"));
        assertThatThrownBy(() -> StepContext.stepDownstreamKey(key("k12"), StepJournal.checkName("")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nestedStepsAreRefused() {
        assertThatThrownBy(() -> engine.execute(key("k14"), "{}", String.class, ctx ->
                ctx.step("outer", String.class, () -> ctx.step("inner", String.class, () -> "x"))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("another step runs");
    }
}
