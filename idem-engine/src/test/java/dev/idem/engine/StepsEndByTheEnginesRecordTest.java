package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import dev.idem.engine.internal.StepJournal;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * How multi-step work ends is decided by what the engine recorded of its steps, never by what
 * the work made of a step's exception: each case here is a way the work (or the store) can
 * hide a step's fate, and each once let an effect run twice.
 */
class StepsEndByTheEnginesRecordTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private final FaultyStore store = new FaultyStore(memory);
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
            .lease(LEASE).ttl(Duration.ofHours(1)).sleeper(clock::advance).build();
    private final List<String> effects = Collections.synchronizedList(new ArrayList<>());

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant", "order", k);
    }

    /** A step result Jackson cannot write: its effect happens, its journal entry cannot. */
    private static final class Unwritable {
    }

    /** What the work does with the step's exception. */
    enum Hiding { RETHROWS, TRANSLATES, SWALLOWS_AND_RETURNS, THROWS_AN_ERROR }

    @ParameterizedTest(name = "the work {0}")
    @EnumSource(Hiding.class)
    void aStepThatCannotBeJournaledFailsTheKeyFinallyWhateverTheWorkDoesWithItsException(Hiding hiding) {
        IdempotencyKey k = key("unjournaled-" + hiding);
        Work<String> work = ctx -> {
            try {
                ctx.step("charge", Object.class, () -> {
                    effects.add("charge@" + ctx.attempt());
                    return new Unwritable();
                });
            } catch (StepNotJournaledException e) {
                switch (hiding) {
                    case RETHROWS:
                        throw e;
                    case TRANSLATES:
                        throw new IllegalStateException("order failed");
                    case SWALLOWS_AND_RETURNS:
                        return "charged, we think";
                    default:
                        throw new AssertionError("worker died");
                }
            }
            return "never";
        };

        Throwable first = org.assertj.core.api.Assertions.catchThrowable(() -> engine.execute(k, "{}", String.class,
                work));

        if (hiding == Hiding.THROWS_AN_ERROR) {
            assertThat(first).isInstanceOf(AssertionError.class);
            assertThat(first.getSuppressed()).singleElement().isInstanceOf(StepNotJournaledException.class);
        } else {
            assertThat(first).isInstanceOfSatisfying(StepNotJournaledException.class,
                    e -> assertThat(e.code()).isEqualTo(StepNotJournaledException.CODE));
            // What the work threw instead is kept with it.
            assertThat(first.getSuppressed()).hasSize(hiding == Hiding.TRANSLATES ? 1 : 0);
        }
        clock.advance(LEASE.plusSeconds(1));
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work))
                .isInstanceOfSatisfying(ReplayedFailureException.class,
                        e -> assertThat(e.code()).isEqualTo(StepNotJournaledException.CODE));
        assertThat(effects).containsExactly("charge@1");
    }

    @Test
    void onceAStepIsJournaledAnotherPayloadIsRefusedEvenAfterATransientFailure() {
        IdempotencyKey k = key("bound");
        Map<String, Object> a = Map.of("amount", 100);
        Work<String> work = ctx -> {
            String charge = ctx.step("charge", String.class, () -> {
                effects.add("charge " + ctx.downstreamKey("charge"));
                return "ch-1";
            });
            ctx.step("ship", () -> {
                if (ctx.attempt() == 1) {
                    throw new IllegalStateException("carrier down");
                }
            });
            return charge;
        };
        assertThatThrownBy(() -> engine.execute(k, a, String.class, work)).hasMessage("carrier down");
        clock.advance(Duration.ofSeconds(1));

        assertThatThrownBy(() -> engine.execute(k, Map.of("amount", 999), String.class, work))
                .isInstanceOf(KeyReusedException.class);
        assertThat(engine.execute(k, a, String.class, work).value()).isEqualTo("ch-1");
        assertThat(effects).hasSize(1);
    }

    @Test
    void aRequestThatRanNoStepMayStillBeFollowedByAnotherPayloadAfterATransientFailure() {
        IdempotencyKey k = key("unbound");
        assertThatThrownBy(() -> engine.execute(k, Map.of("amount", 100), String.class, ctx -> {
            throw new IllegalStateException("validation service down");
        })).hasMessage("validation service down");
        assertThat(memory.find(k).orElseThrow().state()).isEqualTo(RecordState.RELEASED);
        assertThat(engine.execute(k, Map.of("amount", 999), String.class, ctx -> "ok").value()).isEqualTo("ok");
    }

    /** What the work does with the journal write's store failure. */
    enum Handling { RETHROWS, TRANSLATES }

    @ParameterizedTest(name = "the work {0}")
    @EnumSource(Handling.class)
    void aJournalWriteTheStoreFailedKeepsTheClaimUntilItsLeaseLapses(Handling handling) {
        IdempotencyKey k = key("cp-down-" + handling);
        store.checkpointFailure = new StoreUnavailableException("timed out", null, true);
        store.checkpointLands = false;
        Work<String> work = ctx -> {
            try {
                return ctx.step("charge", String.class, () -> {
                    effects.add("charge " + ctx.downstreamKey("charge"));
                    return "ch";
                });
            } catch (StoreUnavailableException e) {
                if (handling == Handling.TRANSLATES) {
                    throw new IllegalStateException("payment state unknown");
                }
                throw e;
            }
        };
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> engine.execute(k, "{}", String.class,
                work));
        if (handling == Handling.RETHROWS) {
            assertThat(thrown).isInstanceOf(StoreUnavailableException.class);
        } else {
            assertThat(thrown).isInstanceOf(IllegalStateException.class);
            assertThat(thrown.getSuppressed()).singleElement().isInstanceOf(StoreUnavailableException.class);
        }
        store.checkpointFailure = null;

        assertThat(memory.find(k).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        // A retry a second later, well inside the lease: neither released nor handed back.
        clock.advance(Duration.ofSeconds(1));
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, work))
                .isInstanceOf(RequestInProgressException.class);
        assertThat(effects).hasSize(1);

        // Once the lease lapses the step runs again, with the downstream key it had: documented.
        clock.advance(LEASE);
        assertThat(engine.execute(k, "{}", String.class, work).value()).isEqualTo("ch");
        assertThat(effects).hasSize(2).containsOnly(effects.get(0));
    }

    @Test
    void aStepStartedAfterTheWorkReturnedFailsBeforeItsActionRuns() {
        AtomicReference<ExecutionContext> escaped = new AtomicReference<>();
        engine.execute(key("late"), "{}", String.class, ctx -> {
            escaped.set(ctx);
            return "done";
        });

        assertThatThrownBy(() -> escaped.get().step("refund", () -> effects.add("refund")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("after the work ended");
        assertThat(effects).isEmpty();
    }

    @Test
    void aStepStartedFromAnotherThreadFailsBeforeItsActionRuns() {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        Result<String> r = engine.execute(key("thread"), "{}", String.class, ctx -> {
            Thread other = new Thread(() -> {
                try {
                    ctx.step("charge", () -> effects.add("charge"));
                } catch (Throwable t) {
                    seen.set(t);
                }
            }, "not-the-work");
            other.start();
            other.join(30_000);
            return "done";
        });

        assertThat(r.value()).isEqualTo("done");
        assertThat(seen.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("not-the-work");
        assertThat(effects).isEmpty();
    }

    @Test
    void aRemovedTrailingStepIsAMismatchAndTheJournalIsKeptForCodeThatMatches() {
        IdempotencyKey k = key("removed");
        String[] all = {"a", "b", "c"};
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, steps(all, true)))
                .hasMessage("after c");
        clock.advance(Duration.ofSeconds(1));

        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, steps(new String[] {"a", "b"}, false)))
                .isInstanceOfSatisfying(StepMismatchException.class, e -> {
                    assertThat(e.step()).isEqualTo("c");
                    assertThat(e).hasMessageContaining("ended after 2 step(s) but the key's journal recorded 3");
                });
        assertThat(StepJournal.decode(memory.find(k).orElseThrow().journal()).size()).isEqualTo(3);
        clock.advance(Duration.ofSeconds(1));

        assertThat(engine.execute(k, "{}", String.class, steps(all, false)).value()).isEqualTo("a1b1c1");
        assertThat(effects).containsExactly("a", "b", "c");
    }

    private Work<String> steps(String[] names, boolean failAtTheEnd) {
        return ctx -> {
            StringBuilder out = new StringBuilder();
            for (String name : names) {
                out.append(ctx.step(name, String.class, () -> {
                    effects.add(name);
                    return name + ctx.attempt();
                }));
            }
            if (failAtTheEnd) {
                throw new IllegalStateException("after " + names[names.length - 1]);
            }
            return out.toString();
        };
    }

    @Test
    void aWorkThatRanNoStepAgainstAJournalIsAMismatchToo() {
        IdempotencyKey k = key("none");
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, steps(new String[] {"a"}, true)))
                .hasMessage("after a");
        clock.advance(Duration.ofSeconds(1));
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, ctx -> "no steps any more"))
                .isInstanceOfSatisfying(StepMismatchException.class, e -> assertThat(e.step()).isEqualTo("a"));
        assertThat(effects).containsExactly("a");
    }

    @Test
    void aFinalFailureClassifiedByTheWorkStillSettlesAKeyWithAnUnjournaledStep() {
        IdempotencyEngine declining = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .failureClassifier(e -> FailureDecision.finalFailure("declined", "no")).build();
        IdempotencyKey k = key("declined");
        assertThatThrownBy(() -> declining.execute(k, "{}", String.class, ctx -> {
            ctx.step("charge", Object.class, Unwritable::new);
            return "never";
        })).isInstanceOfSatisfying(FinalFailureException.class,
                e -> assertThat(e.code()).isEqualTo(StepNotJournaledException.CODE));
    }

    @Test
    void anErrorAfterAFailedJournalWriteKeepsTheClaimToo() {
        IdempotencyKey k = key("error-after-cp");
        store.checkpointFailure = new StoreUnavailableException("reset", null, false);
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, ctx -> {
            try {
                ctx.step("charge", () -> effects.add("charge"));
            } catch (StoreUnavailableException e) {
                throw new OutOfMemoryError("simulated");
            }
            return "never";
        })).isInstanceOf(OutOfMemoryError.class);
        store.checkpointFailure = null;
        assertThat(store.releases).hasValue(0);
        assertThat(store.extensions).hasValue(0);
        assertThat(memory.find(k).orElseThrow().leaseExpiresAt()).isAfter(clock.instant().plus(Duration.ofSeconds(29)));
    }

    @Test
    void anErrorAfterAJournaledStepHandsTheKeyBack() {
        IdempotencyKey k = key("error-after-step");
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, ctx -> {
            ctx.step("charge", () -> effects.add("charge"));
            throw new StackOverflowError("simulated");
        })).isInstanceOf(StackOverflowError.class);
        assertThat(store.releases).hasValue(0);
        StepsTest.assertHandedBack(memory, clock, k);
        assertThatThrownBy(() -> engine.execute(k, "{\"other\":1}", String.class, ctx -> "never"))
                .isInstanceOf(KeyReusedException.class);
    }

    @Test
    void aHandBackTheStoreRefusesIsALostLeaseAttachedToTheFailure() {
        IdempotencyKey k = key("refused-hand-back");
        List<IdempotencyEvent.Type> events = new ArrayList<>();
        IdempotencyEngine listened = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .listener(e -> events.add(e.type())).build();
        Work<String> work = ctx -> {
            ctx.step("charge", () -> effects.add("charge"));
            store.extendRefused = true;
            throw new IllegalStateException("later step failed");
        };
        assertThatThrownBy(() -> listened.execute(k, "{}", String.class, work))
                .hasMessage("later step failed")
                .satisfies(t -> assertThat(t.getSuppressed()).singleElement()
                        .isInstanceOf(dev.idem.api.LeaseLostException.class));
        assertThat(events).containsExactly(IdempotencyEvent.Type.LEASE_LOST);

        store.extendRefused = false;
        store.extendDown = true;
        IdempotencyKey k2 = key("failed-hand-back");
        assertThatThrownBy(() -> listened.execute(k2, "{}", String.class, ctx -> {
            ctx.step("charge", () -> effects.add("charge"));
            throw new IllegalStateException("later step failed");
        })).satisfies(t -> assertThat(t.getSuppressed()).singleElement().isInstanceOf(StoreUnavailableException.class));
        assertThat(events).containsExactly(IdempotencyEvent.Type.LEASE_LOST);
    }

    @Test
    void anExtendedLeaseIsNotRenewedBeforeTheNextStepUntilTheExtensionRunsOut() {
        Result<String> r = engine.execute(key("extended"), "{}", String.class, ctx -> {
            ctx.step("a", () -> effects.add("a"));
            ctx.extendLease(Duration.ofMinutes(2));
            clock.advance(Duration.ofMinutes(1));
            ctx.step("b", () -> effects.add("b"));
            assertThat(store.extensions).as("no renewal inside the extension").hasValue(1);
            clock.advance(Duration.ofMinutes(1));
            ctx.step("c", () -> effects.add("c"));
            assertThat(store.extensions).as("renewed once the extension ran out, to the minute").hasValue(2);
            return "ok";
        });
        assertThat(r.stored()).isTrue();
        assertThat(effects).containsExactly("a", "b", "c");
    }

    @Test
    void aJournalTheEngineCannotReadIsAMismatchForWorkThatRunsNoStep() {
        IdempotencyKey k = key("garbled");
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, steps(new String[] {"a"}, true)))
                .hasMessage("after a");
        long token = memory.find(k).orElseThrow().fencingToken();
        assertThat(memory.checkpoint(k, token, "not a journal".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isTrue();
        clock.advance(Duration.ofSeconds(1));
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, ctx -> "no steps"))
                .isInstanceOf(StepMismatchException.class).hasMessageContaining("cannot be read")
                .hasCauseInstanceOf(dev.idem.api.IdempotencyException.class);
    }

    @Test
    void aStaleWorkersRefusedJournalWriteFailsItsStepAndNoLaterStepRuns() {
        IdempotencyKey k = key("stale");
        IdempotencyEngine other = IdempotencyEngine.builder().store(memory).ticker(ClockTicker.of(clock)).lease(LEASE)
                .build();
        List<Throwable> seen = new ArrayList<>();
        assertThatThrownBy(() -> engine.execute(k, "{}", String.class, ctx -> {
            try {
                ctx.step("charge", () -> {
                    effects.add("charge@" + ctx.attempt());
                    if (ctx.attempt() == 1) {
                        clock.advance(LEASE);
                        other.execute(k, "{}", String.class, c -> {
                            c.step("charge", () -> effects.add("charge@" + c.attempt()));
                            return "taker";
                        });
                    }
                });
            } catch (dev.idem.api.LeaseLostException e) {
                seen.add(e);
            }
            ctx.step("ship", () -> effects.add("ship"));
            return "stale";
        })).isInstanceOf(dev.idem.api.LeaseLostException.class);
        assertThat(seen).hasSize(1);
        assertThat(effects).containsExactly("charge@1", "charge@2");
    }

    @Test
    void anAtomicActionThatFindsItsOwnLeaseLostStopsTheExecutionEvenBeforeAskingForItsJournal() {
        List<String> thrown = new ArrayList<>();
        assertThatThrownBy(() -> engine.execute(key("own-lost"), "{}", String.class, ctx -> {
            try {
                ctx.atomicStep("charge", String.class, cp -> {
                    throw new dev.idem.api.LeaseLostException(ctx.key(), cp.fencingToken());
                });
            } catch (dev.idem.api.LeaseLostException e) {
                thrown.add("charge");
            }
            return ctx.step("ship", String.class, () -> "shipped");
        })).isInstanceOf(dev.idem.api.LeaseLostException.class);
        assertThat(thrown).containsExactly("charge");
    }

    @Test
    void anAtomicActionFailingOnAnotherKeysLeaseBeforeAskingLetsTheWorkGoOn() {
        IdempotencyKey other = key("someone-else");
        Result<String> r = engine.execute(key("other-lost"), "{}", String.class, ctx -> {
            try {
                ctx.atomicStep("charge", String.class, cp -> {
                    throw new dev.idem.api.LeaseLostException(other, 1);
                });
            } catch (dev.idem.api.LeaseLostException e) {
                // a nested call's lease: this execution may carry on
            }
            return ctx.step("ship", String.class, () -> "shipped");
        });
        assertThat(r.value()).isEqualTo("shipped");
    }

    @Test
    void atomicStepsTakeGenericResultTypes() {
        com.fasterxml.jackson.core.type.TypeReference<List<String>> type = new com.fasterxml.jackson.core.type
                .TypeReference<>() { };
        Result<String> r = engine.execute(key("generic-atomic"), "{}", String.class, ctx ->
                ctx.atomicStep("charge", type, cp -> {
                    List<String> result = List.of("a", "b");
                    if (!memory.checkpoint(ctx.key(), cp.fencingToken(), cp.journalWith(result))) {
                        throw new dev.idem.api.LeaseLostException(ctx.key(), cp.fencingToken());
                    }
                    return result;
                }).toString());
        assertThat(r.value()).isEqualTo("[a, b]");
    }

    @Test
    void aJournalOfExactlyTheLimitIsSavedAndOneByteMoreIsTooLargeForTheStepToo() throws Exception {
        byte[] result = engine.parts.codec().encodeSuccess("r");
        int exact = (int) StepJournal.empty().sizeWith("a", result);
        IdempotencyEngine tight = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .maxOutcomeBytes(exact).build();
        assertThat(tight.execute(key("exact-journal"), "{}", String.class, ctx ->
                ctx.step("a", String.class, () -> "r")).value()).isEqualTo("r");

        IdempotencyEngine tighter = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .maxOutcomeBytes(exact - 1).build();
        List<Throwable> seen = new ArrayList<>();
        assertThatThrownBy(() -> tighter.execute(key("over-journal"), "{}", String.class, ctx -> {
            try {
                return ctx.step("a", String.class, () -> "r");
            } catch (StepJournalTooLargeException e) {
                seen.add(e);
                throw e;
            }
        })).isInstanceOf(OutcomeNotStoredException.class)
                .as("a limit this small holds not even the step's final failure: its marker stands in").isNotNull();
        assertThat(seen).hasSize(1);
    }

    @Test
    void aHandBackIsReportedAsAReleaseOnATransientFailure() {
        List<IdempotencyEvent.Type> events = new ArrayList<>();
        IdempotencyEngine listened = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .listener(e -> events.add(e.type())).build();
        assertThatThrownBy(() -> listened.execute(key("reported"), "{}", String.class, ctx -> {
            ctx.step("charge", () -> effects.add("charge"));
            throw new IllegalStateException("later step failed");
        })).hasMessage("later step failed");
        assertThat(events).containsExactly(IdempotencyEvent.Type.RELEASED_ON_TRANSIENT_FAILURE);
        assertThat(store.releases).hasValue(0);
    }
}
