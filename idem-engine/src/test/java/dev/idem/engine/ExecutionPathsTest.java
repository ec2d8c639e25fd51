package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.RecordState;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.engine.internal.OutcomeCodec;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's less travelled paths, each checked for what a caller and an operator see: the
 * exception and its cause or suppressed failures, the events (which metrics count), what the
 * store holds, and whether the near cache answers a retry without a store round trip.
 */
class ExecutionPathsTest {
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private final FaultyStore store = new FaultyStore(memory);
    private final List<Type> events = new CopyOnWriteArrayList<>();
    private final List<Long> sleeps = new CopyOnWriteArrayList<>();

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("t", "op", k);
    }

    private IdempotencyEngine engine(UnaryOperator<IdempotencyEngineBuilder> extra) {
        return extra.apply(IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).listener(e -> events.add(e.type()))
                .sleeper(d -> {
                    sleeps.add(d.toMillis());
                    clock.advance(d);
                })).build();
    }

    private static FailureClassifier allFinal() {
        return e -> FailureDecision.finalFailure("declined", "card declined");
    }

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void aNearCacheHitWithAnotherPayloadIsAKeyReuse() {
        IdempotencyEngine engine = engine(b -> b.nearCache(10));
        engine.execute(key("a"), "{\"amount\":1}", String.class, ctx -> "v");
        int claims = store.claims.get();

        assertThatThrownBy(() -> engine.execute(key("a"), "{\"amount\":2}", String.class, ctx -> "w"))
                .isInstanceOf(KeyReusedException.class);
        assertThat(store.claims).hasValue(claims);
        assertThat(events).containsExactly(Type.FIRST_EXECUTION, Type.KEY_REUSED);
    }

    @Test
    void thisCallsOwnLeaseLossIsRethrownAndTheClaimKept() {
        IdempotencyEngine engine = engine(b -> b);
        LeaseLostException[] thrown = new LeaseLostException[1];
        assertThatThrownBy(() -> engine.execute(key("b"), "{}", String.class, ctx -> {
            thrown[0] = new LeaseLostException(ctx.key(), ctx.fencingToken());
            throw thrown[0];
        })).isSameAs(thrown[0]);
        assertThat(events).containsExactly(Type.LEASE_LOST);
        assertThat(store.releases).hasValue(0);
        assertThat(memory.find(key("b")).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    }

    @Test
    void aLeaseLossOfAnotherClaimOfThisKeyIsAFailureOfTheWork() {
        IdempotencyEngine engine = engine(b -> b);
        assertThatThrownBy(() -> engine.execute(key("c"), "{}", String.class, ctx -> {
            throw new LeaseLostException(ctx.key(), ctx.fencingToken() + 1);
        })).isInstanceOf(LeaseLostException.class);
        assertThat(events).containsExactly(Type.RELEASED_ON_TRANSIENT_FAILURE);
        assertThat(store.releases).hasValue(1);
        assertThat(engine.execute(key("c"), "{}", String.class, ctx -> "again").value()).isEqualTo("again");
    }

    /** A duplicate made from inside the first call's work, so the first holds its lease throughout. */
    private RequestInProgressException waitForOwnKey(IdempotencyEngine engine, IdempotencyKey key, Duration wait) {
        CallOptions waiting = CallOptions.builder().inProgress(InProgressPolicy.waitUpTo(wait)).build();
        RequestInProgressException[] conflict = new RequestInProgressException[1];
        engine.execute(key, "{}", String.class, ctx -> {
            try {
                engine.execute(key, "{}", String.class, waiting, inner -> "never");
            } catch (RequestInProgressException e) {
                conflict[0] = e;
            }
            return "first";
        });
        return conflict[0];
    }

    @Test
    void aWaitPollsWithEqualJitterAndEndsExactlyAtItsBound() {
        // nextDouble() == 0.5: each pause is half its ceiling plus half of the other half.
        IdempotencyEngine engine = engine(b -> b.random(() -> Long.MIN_VALUE));
        assertThat(waitForOwnKey(engine, key("d"), Duration.ofSeconds(1))).isNotNull();

        assertThat(sleeps).startsWith(8L, 15L, 30L, 60L, 120L, 240L, 375L);
        assertThat(sleeps.stream().mapToLong(Long::longValue).sum()).isEqualTo(1000);
        assertThat(events).containsExactly(Type.IN_PROGRESS_CONFLICT, Type.FIRST_EXECUTION);
    }

    @Test
    void anInterruptedWaitGivesUpAndKeepsTheInterrupt() {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .sleeper(d -> {
                    throw new InterruptedException("shutting down");
                }).build();
        boolean[] interrupted = new boolean[1];
        engine.execute(key("e"), "{}", String.class, ctx -> {
            CallOptions waiting = CallOptions.builder().inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(5)))
                    .build();
            assertThatThrownBy(() -> engine.execute(key("e"), "{}", String.class, waiting, inner -> "never"))
                    .isInstanceOf(RequestInProgressException.class);
            interrupted[0] = Thread.interrupted();
            return "first";
        });
        assertThat(interrupted[0]).isTrue();
    }

    @Test
    void anInterruptedCompletionRetryStopsAndKeepsTheInterrupt() {
        store.completeDown = true;
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).completeAttempts(3)
                .sleeper(d -> {
                    throw new InterruptedException("shutting down");
                }).build();
        Result<String> r = engine.execute(key("f"), "{}", String.class, ctx -> "v");
        assertThat(r.stored()).isFalse();
        assertThat(r.value()).isEqualTo("v");
        assertThat(store.completes).hasValue(1);
        assertThat(Thread.interrupted()).isTrue();
    }

    @Test
    void atomicWorkThatCompletedIsAFirstExecutionAndFillsTheNearCache() {
        IdempotencyEngine engine = engine(b -> b.nearCache(10));
        AtomicWork<String> proper = (ctx, completion) -> {
            memory.complete(ctx.key(), ctx.fencingToken(), completion.encode("done"), completion.ttl());
            return "done";
        };
        Result<String> r = engine.executeAtomically(key("g"), "{}", String.class, CallOptions.defaults(), proper);
        assertThat(r.value()).isEqualTo("done");
        assertThat(r.stored()).isTrue();
        int claims = store.claims.get();

        Result<String> again = engine.executeAtomically(key("g"), "{}", String.class, CallOptions.defaults(), proper);
        assertThat(again.replayed()).isTrue();
        assertThat(again.value()).isEqualTo("done");
        assertThat(store.claims).as("answered by the near cache").hasValue(claims);
        assertThat(events).containsExactly(Type.FIRST_EXECUTION, Type.REPLAY);
    }

    @Test
    void atomicWorkWhoseCompletionCannotBeCheckedIsReturnedAsNotStored() {
        IdempotencyEngine engine = engine(b -> b);
        Result<String> r = engine.executeAtomically(key("h"), "{}", String.class, CallOptions.defaults(),
                (ctx, completion) -> {
                    memory.complete(ctx.key(), ctx.fencingToken(), completion.encode("done"), completion.ttl());
                    store.findDown = true;
                    return "done";
                });
        assertThat(r.value()).isEqualTo("done");
        assertThat(r.stored()).isFalse();
        assertThat(events).containsExactly(Type.OUTCOME_NOT_STORED);
    }

    @Test
    void atomicWorkWhoseRecordIsNoLongerItsOwnLostTheLease() {
        IdempotencyEngine engine = engine(b -> b);
        assertThatThrownBy(() -> engine.executeAtomically(key("i"), "{}", String.class, CallOptions.defaults(),
                (ctx, completion) -> {
                    memory.release(ctx.key(), ctx.fencingToken());
                    return "done";
                })).isInstanceOf(LeaseLostException.class);
        assertThat(events).containsExactly(Type.LEASE_LOST);
    }

    @Test
    void aStoredFinalFailureIsReplayedFromTheNearCache() {
        IdempotencyEngine engine = engine(b -> b.nearCache(10).failureClassifier(allFinal()));
        assertThatThrownBy(() -> engine.execute(key("j"), "{}", String.class, ctx -> {
            throw new IllegalStateException("declined by the bank");
        })).isInstanceOf(FinalFailureException.class);
        int claims = store.claims.get();

        assertThatThrownBy(() -> engine.execute(key("j"), "{}", String.class, ctx -> "never"))
                .isInstanceOf(ReplayedFailureException.class);
        assertThat(store.claims).hasValue(claims);
        assertThat(events).containsExactly(Type.FINAL_FAILURE_STORED, Type.REPLAY);
    }

    @Test
    void aFinalFailureWhoseRecordWasTakenIsALostLeaseCausedByTheFailure() {
        store.completeRefused = true;
        IdempotencyEngine engine = engine(b -> b.failureClassifier(allFinal()));
        IllegalStateException failure = new IllegalStateException("declined by the bank");
        assertThatThrownBy(() -> engine.execute(key("k"), "{}", String.class, ctx -> {
            throw failure;
        })).isInstanceOf(LeaseLostException.class).hasCause(failure);
        assertThat(events).containsExactly(Type.LEASE_LOST);
    }

    @Test
    void aFinalFailureTheStoreCannotTakeIsAnsweredWithTheStoreFailureAttached() {
        store.completeDown = true;
        IdempotencyEngine engine = engine(b -> b.failureClassifier(allFinal()).completeAttempts(1));
        assertThatThrownBy(() -> engine.execute(key("l"), "{}", String.class, ctx -> {
            throw new IllegalStateException("declined by the bank");
        })).isInstanceOfSatisfying(FinalFailureException.class, e -> assertThat(e.getSuppressed())
                .singleElement().isInstanceOf(StoreUnavailableException.class));
        assertThat(events).containsExactly(Type.OUTCOME_NOT_STORED);
    }

    @Test
    void aTransientFailureWhoseReleaseIsRefusedReportsTheLostLease() {
        store.releaseRefused = true;
        IdempotencyEngine engine = engine(b -> b);
        assertThatThrownBy(() -> engine.execute(key("m"), "{}", String.class, ctx -> {
            throw new IllegalStateException("timeout");
        })).isInstanceOfSatisfying(IllegalStateException.class, e -> assertThat(e.getSuppressed())
                .singleElement().isInstanceOf(LeaseLostException.class));
        assertThat(events).containsExactly(Type.LEASE_LOST);
    }

    @Test
    void aTransientFailureWhoseReleaseFailsCarriesTheStoreFailure() {
        store.releaseDown = true;
        IdempotencyEngine engine = engine(b -> b);
        assertThatThrownBy(() -> engine.execute(key("n"), "{}", String.class, ctx -> {
            throw new IllegalStateException("timeout");
        })).isInstanceOfSatisfying(IllegalStateException.class, e -> assertThat(e.getSuppressed())
                .singleElement().isInstanceOf(StoreUnavailableException.class));
        assertThat(events).isEmpty();
    }

    /** Jackson cannot write an object with no properties. */
    private static final class Unwritable {
    }

    @Test
    void anUnstorableOutcomesMarkerIsReplayedFromTheNearCache() {
        IdempotencyEngine engine = engine(b -> b.nearCache(10));
        assertThatThrownBy(() -> engine.execute(key("o"), "{}", Object.class, ctx -> new Unwritable()))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> assertThat(e.replayed()).isFalse());
        int claims = store.claims.get();

        assertThatThrownBy(() -> engine.execute(key("o"), "{}", Object.class, ctx -> "never"))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> assertThat(e.replayed()).isTrue());
        assertThat(store.claims).hasValue(claims);
    }

    @Test
    void anUnstorableOutcomeWhoseRecordWasTakenIsALostLease() {
        store.completeRefused = true;
        IdempotencyEngine engine = engine(b -> b);
        assertThatThrownBy(() -> engine.execute(key("p"), "{}", Object.class, ctx -> new Unwritable()))
                .isInstanceOfSatisfying(LeaseLostException.class, e -> assertThat(e.getSuppressed())
                        .singleElement().isInstanceOf(OutcomeNotStoredException.class));
        assertThat(events).containsExactly(Type.OUTCOME_NOT_STORED, Type.LEASE_LOST);
    }

    @Test
    void anUnstorableOutcomeTheStoreCannotTakeCarriesTheStoreFailure() {
        store.completeDown = true;
        IdempotencyEngine engine = engine(b -> b.completeAttempts(1));
        assertThatThrownBy(() -> engine.execute(key("q"), "{}", Object.class, ctx -> new Unwritable()))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> assertThat(e.getSuppressed())
                        .singleElement().isInstanceOf(StoreUnavailableException.class));
    }

    @Test
    void whenNotEvenTheMarkerFitsTheClaimIsKeptAndNothingIsWritten() {
        store.maxOutcomeBytes = 4;
        IdempotencyEngine engine = engine(b -> b);
        assertThatThrownBy(() -> engine.execute(key("r"), "{}", String.class, ctx -> "far too long to store"))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> assertThat(e.reason()).isEmpty());
        assertThat(store.completes).hasValue(0);
        assertThat(memory.find(key("r")).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(events).containsExactly(Type.OUTCOME_NOT_STORED);
    }

    private static final String REFUSED = "the store refused it: ";

    private static StoreUnavailableException refusal(String message) {
        return new StoreUnavailableException(message, null, false);
    }

    @Test
    void aReasonOfExactlyThreeHundredCharactersIsKeptWholeOneMoreIsCut() {
        IdempotencyEngine engine = engine(b -> b);
        String exact = "x".repeat(300 - REFUSED.length());
        store.completeFailureOnce = refusal(exact);
        assertThatThrownBy(() -> engine.execute(key("v"), "{}", String.class, ctx -> "v"))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class,
                        e -> assertThat(e.reason()).isEqualTo(REFUSED + exact));

        store.completeFailureOnce = refusal(exact + "y");
        assertThatThrownBy(() -> engine.execute(key("w"), "{}", String.class, ctx -> "v"))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class,
                        e -> assertThat(e.reason()).isEqualTo(REFUSED + exact + "..."));
    }

    @Test
    void aMarkerOfExactlyTheStoresLimitIsStored() {
        String reason = REFUSED + "disk full";
        int markerBytes = new OutcomeCodec(new ObjectMapper()).encodeNotStored(reason).length;
        store.maxOutcomeBytes = markerBytes;
        store.completeFailureOnce = refusal("disk full");
        IdempotencyEngine engine = engine(b -> b);
        assertThatThrownBy(() -> engine.execute(key("x"), "{}", String.class, ctx -> "v"))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> assertThat(e.reason()).isEqualTo(reason));
        assertThat(memory.find(key("x")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThatThrownBy(() -> engine.execute(key("x"), "{}", String.class, ctx -> "never"))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> assertThat(e.reason()).isEqualTo(reason));
    }

    private static String unwritableReason() {
        try {
            new ObjectMapper().writeValueAsBytes(new Unwritable());
        } catch (JsonProcessingException e) {
            return "the result cannot be written as JSON: " + e.getMessage();
        }
        throw new AssertionError("an object with no properties was written");
    }

    @Test
    void anUnwritableResultsReasonIsJacksonsOwnMessage() {
        IdempotencyEngine engine = engine(b -> b);
        assertThatThrownBy(() -> engine.execute(key("y"), "{}", Object.class, ctx -> new Unwritable()))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class,
                        e -> assertThat(e.reason()).isEqualTo(unwritableReason()));
    }

    @Test
    void aMarkerThatFitsButIsRefusedIsALostLease() {
        store.maxOutcomeBytes = new OutcomeCodec(new ObjectMapper()).encodeNotStored(unwritableReason()).length;
        store.completeRefused = true;
        IdempotencyEngine engine = engine(b -> b);
        assertThatThrownBy(() -> engine.execute(key("z"), "{}", Object.class, ctx -> new Unwritable()))
                .isInstanceOf(LeaseLostException.class);
    }

    @Test
    void anOutcomeOfExactlyTheStoresLimitIsStored() {
        store.maxOutcomeBytes = new OutcomeCodec(new ObjectMapper()).encodeSuccess("exactly").length;
        IdempotencyEngine engine = engine(b -> b);
        assertThat(engine.execute(key("aa"), "{}", String.class, ctx -> "exactly").stored()).isTrue();
        assertThatThrownBy(() -> engine.execute(key("ab"), "{}", String.class, ctx -> "exactly!"))
                .isInstanceOf(OutcomeNotStoredException.class);
    }

    @Test
    void aWaitingDuplicateWakesJustAfterTheHoldersLeaseLapsesAndTakesOver() {
        IdempotencyEngine engine = engine(b -> b.random(() -> Long.MIN_VALUE));
        CallOptions shortLease = CallOptions.builder().lease(Duration.ofMillis(12)).build();
        CallOptions waiting = CallOptions.builder().inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(5))).build();
        String[] inner = new String[1];
        assertThatThrownBy(() -> engine.execute(key("ac"), "{}", String.class, shortLease, ctx -> {
            inner[0] = engine.execute(key("ac"), "{}", String.class, waiting, c -> "taker-over").value();
            return "stale holder";
        })).isInstanceOf(LeaseLostException.class);
        // 8 ms of jitter, then 5 ms: 1 ms past the 12 ms lease rather than the 15 ms the jitter asked for.
        assertThat(sleeps).containsExactly(8L, 5L);
        assertThat(inner[0]).isEqualTo("taker-over");
        assertThat(events).contains(Type.LEASE_TAKEN_OVER);
    }

    @Test
    void aPerCallTtlShorterThanTheEnginesWaitIsRefused() {
        IdempotencyEngine engine = engine(b -> b.inProgress(InProgressPolicy.waitUpTo(Duration.ofHours(1))));
        CallOptions shortTtl = CallOptions.builder().ttl(Duration.ofMinutes(30)).build();
        assertThatThrownBy(() -> engine.execute(key("ad"), "{}", String.class, shortTtl, ctx -> "v"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not exceed ttl");
        assertThat(store.claims).hasValue(0);
    }

    @Test
    void aServerClockStoresReplayIsCachedForTheTimeItHasLeftWhateverTheEngineClockSays() {
        engine(b -> b).execute(key("s"), "{}", String.class, ctx -> "v"); // stored at the store's time 0, 24 h TTL
        store.serverClock = true;
        MutableClock engineClock = new MutableClock(clock.instant().plus(Duration.ofMinutes(10)));
        IdempotencyEngine skewed = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(engineClock)).nearCache(10).build();

        assertThat(skewed.execute(key("s"), "{}", String.class, ctx -> "never").replayed()).isTrue();
        int claims = store.claims.get();
        engineClock.advance(Duration.ofHours(24).minusMillis(1));
        assertThat(skewed.execute(key("s"), "{}", String.class, ctx -> "never").value()).isEqualTo("v");
        assertThat(store.claims).as("answered by the near cache").hasValue(claims);

        engineClock.advance(Duration.ofMillis(1));
        skewed.execute(key("s"), "{}", String.class, ctx -> "never");
        assertThat(store.claims).as("the cached entry ran out with the record's time left").hasValue(claims + 1);
    }

    @Test
    void extendingTheLeaseMovesTheDeadlineTheContextReports() {
        IdempotencyEngine engine = engine(b -> b);
        Instant start = clock.instant();
        engine.execute(key("t"), "{}", String.class, ctx -> {
            Instant deadline = ctx.extendLease(Duration.ofMinutes(5));
            assertThat(deadline).isEqualTo(start.plus(Duration.ofMinutes(5)));
            assertThat(ctx.leaseDeadline()).isEqualTo(deadline);
            assertThat(ctx).hasToString("ExecutionContext[" + key("t") + ", attempt 1]");
            return "v";
        });
        assertThat(memory.find(key("t")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void aPerCallWaitLongerThanTheEnginesTtlIsRefused() {
        IdempotencyEngine engine = engine(b -> b.ttl(Duration.ofHours(1)));
        CallOptions tooLong = CallOptions.builder()
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofHours(1).plusMillis(1))).build();
        assertThatThrownBy(() -> engine.execute(key("u"), "{}", String.class, tooLong, ctx -> "v"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not exceed ttl");
        assertThat(store.claims).hasValue(0);
    }
}
