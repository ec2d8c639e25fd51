package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidRequestException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.RecordState;
import dev.idem.api.time.Ticker;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Paths at the engine's edges: a final failure too large to store, time measured while the
 * wall clock jumps, an interrupted work, and the arguments a new user gets wrong first.
 */
class EdgesOfTheEngineTest {
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private final FaultyStore store = new FaultyStore(memory);
    private final AtomicInteger runs = new AtomicInteger();

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("t", "op", k);
    }

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void aFinalFailureOverTheLimitIsStoredAsAMarkerSoTheWorkNeverRunsAgain() {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .maxOutcomeBytes(1024).failureClassifier(e -> FailureDecision.finalFailure("rejected", e.getMessage()))
                .build();
        Work<String> work = ctx -> {
            runs.incrementAndGet();
            throw new IllegalArgumentException("x".repeat(2000));
        };
        for (int call = 0; call < 2; call++) {
            boolean replay = call > 0;
            assertThatThrownBy(() -> engine.execute(key("big"), "{}", String.class, work))
                    .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> {
                        assertThat(e.replayed()).isEqualTo(replay);
                        assertThat(e.reason()).startsWith("the final failure 'rejected' is ")
                                .contains("over the limit of 1024");
                    });
            // After the lease a retry still finds the marker.
            clock.advance(Duration.ofMinutes(1));
        }
        assertThat(runs).hasValue(1);
        assertThat(memory.find(key("big")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void aBoundedWaitEndsAfterItsBoundOnTheTickerWhenTheWallClockIsSteppedBack() {
        AtomicLong nanos = new AtomicLong();
        Ticker ticker = nanos::get;
        List<Duration> sleeps = new ArrayList<>();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).clock(clock).ticker(ticker)
                .sleeper(d -> {
                    sleeps.add(d);
                    nanos.addAndGet(d.toNanos());
                    clock.advance(d);
                    if (sleeps.size() == 1) {
                        // NTP steps the wall clock back an hour during the wait.
                        clock.advance(Duration.ofHours(-1));
                    }
                }).build();
        CallOptions waitASecond = CallOptions.builder().inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(1)))
                .build();
        engine.execute(key("held"), "{}", String.class, ctx -> {
            assertThatThrownBy(() -> engine.execute(key("held"), "{}", String.class, waitASecond, c -> "never"))
                    .isInstanceOf(RequestInProgressException.class);
            return "first";
        });

        assertThat(sleeps.stream().mapToLong(Duration::toMillis).sum()).isEqualTo(1000);
    }

    @Test
    void aCachedReplayLivesItsRecordsTimeOnTheTickerWhateverTheWallClockDoes() {
        AtomicLong nanos = new AtomicLong();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).clock(clock).ticker(nanos::get)
                .ttl(Duration.ofMinutes(10)).nearCache(10).build();
        engine.execute(key("cached"), "{}", String.class, ctx -> "v" + runs.incrementAndGet());
        int claims = store.claims.get();
        clock.advance(Duration.ofHours(-1));
        nanos.addAndGet(Duration.ofMinutes(10).minusMillis(1).toNanos());
        assertThat(engine.execute(key("cached"), "{}", String.class, ctx -> "never").value()).isEqualTo("v1");
        assertThat(store.claims).as("answered by the near cache").hasValue(claims);

        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        engine.execute(key("cached"), "{}", String.class, ctx -> "v" + runs.incrementAndGet());
        assertThat(store.claims).as("the entry ran out with the record's time").hasValue(claims + 1);
    }

    @Test
    void workThatThrowsInterruptedExceptionComesBackWithTheThreadStillInterrupted() {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).build();
        InterruptedException interrupted = new InterruptedException("shutting down");
        assertThatThrownBy(() -> engine.execute(key("int"), "{}", String.class, ctx -> {
            throw interrupted;
        })).isInstanceOf(WorkFailedException.class).hasCause(interrupted);

        assertThat(Thread.interrupted()).isTrue();
        // The release ran before the flag was set, so it was not refused by an interrupted client.
        assertThat(memory.find(key("int")).orElseThrow().state()).isEqualTo(RecordState.RELEASED);
    }

    @Test
    void aStringRequestThatIsNotJsonSaysWhatToPassInstead() {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        assertThatThrownBy(() -> engine.execute(key("s"), "order-42", String.class, ctx -> "never"))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(400);
                    assertThat(e).hasMessageContaining("a String request must be JSON text")
                            .hasMessageContaining("getBytes(StandardCharsets.UTF_8)");
                });
        assertThat(store.claims).hasValue(0);
        // What the message suggests works, and a quoted string is the same request as its TextNode.
        byte[] bytes = "order-42".getBytes(StandardCharsets.UTF_8);
        assertThat(engine.execute(key("s"), bytes, String.class, ctx -> "ran").value()).isEqualTo("ran");
        assertThat(engine.execute(key("q"), "\"order-42\"", String.class, ctx -> "ran").value()).isEqualTo("ran");
        assertThat(engine.execute(key("q"), com.fasterxml.jackson.databind.node.TextNode.valueOf("order-42"),
                String.class, ctx -> "never").replayed()).isTrue();
    }

    @Test
    void aStringRequestOverTheSizeLimitIsStillATooLargeRequest() {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).maxRequestBytes(8).build();
        assertThatThrownBy(() -> engine.execute(key("s"), "\"0123456789\"", String.class, ctx -> "never"))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> {
                    assertThat(e.httpStatus()).isEqualTo(413);
                    assertThat(e).hasMessageNotContaining("JSON text");
                });
    }

    @Test
    void aNullKeyOrRequestIsAProgrammingErrorNamedAsSuch() {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        assertThatThrownBy(() -> engine.execute(null, "{}", String.class, ctx -> "never"))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("IdempotencyKey.of(");
        assertThatThrownBy(() -> engine.execute(key("n"), null, String.class, ctx -> "never"))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("request must not be null")
                .hasMessageContaining("NullNode");
        assertThat(store.claims).hasValue(0);
    }

    @Test
    void everyStoreGetsTheSameDefaultOutcomeLimitWhichMayBeRaisedUpToWhatTheStoreHolds() {
        IdempotencyEngine standard = IdempotencyEngine.builder().store(store).build();
        assertThat(standard.maxOutcomeBytes()).isEqualTo(IdempotencyEngine.DEFAULT_MAX_OUTCOME_BYTES)
                .isEqualTo(393_216);
        String justOver = "x".repeat(IdempotencyEngine.DEFAULT_MAX_OUTCOME_BYTES);
        assertThatThrownBy(() -> standard.execute(key("big"), "{}", String.class, ctx -> justOver))
                .isInstanceOf(OutcomeNotStoredException.class);

        IdempotencyEngine raised = IdempotencyEngine.builder().store(store).maxOutcomeBytes(1 << 20).build();
        assertThat(raised.execute(key("raised"), "{}", String.class, ctx -> justOver).stored()).isTrue();

        store.maxOutcomeBytes = 1000;
        assertThat(IdempotencyEngine.builder().store(store).build().maxOutcomeBytes()).isEqualTo(1000);
        assertThat(IdempotencyEngine.builder().store(store).maxOutcomeBytes(1000).build().maxOutcomeBytes())
                .isEqualTo(1000);
        assertThat(IdempotencyEngine.builder().store(store).maxOutcomeBytes(1).build().maxOutcomeBytes())
                .isEqualTo(1);
        assertThatThrownBy(() -> IdempotencyEngine.builder().store(store).maxOutcomeBytes(1001).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds (1000)");
        assertThatThrownBy(() -> IdempotencyEngine.builder().maxOutcomeBytes(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
    }

    @Test
    void aFinalFailureTheStoreRefusesForGoodIsStoredAsAMarker() {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .failureClassifier(e -> FailureDecision.finalFailure("declined", "card declined")).build();
        Work<String> work = ctx -> {
            runs.incrementAndGet();
            throw new IllegalStateException("declined");
        };
        store.completeFailureOnce = new dev.idem.api.StoreUnavailableException("quota", null, false);
        assertThatThrownBy(() -> engine.execute(key("refused"), "{}", String.class, work))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> assertThat(e.reason())
                        .isEqualTo("the store refused the final failure 'declined': quota"));
        store.completeFailureOnce = new IllegalArgumentException("too big for me");
        assertThatThrownBy(() -> engine.execute(key("refused-size"), "{}", String.class, work))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> assertThat(e.reason())
                        .isEqualTo("the store refused the final failure 'declined': too big for me"));
        for (String k : List.of("refused", "refused-size")) {
            assertThatThrownBy(() -> engine.execute(key(k), "{}", String.class, work))
                    .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> assertThat(e.replayed()).isTrue());
        }
        assertThat(runs).hasValue(2);
    }

    @Test
    void aFinalFailureOfExactlyTheLimitIsStored() {
        byte[] failure = new dev.idem.engine.internal.OutcomeCodec(new com.fasterxml.jackson.databind.ObjectMapper())
                .encodeFailure("declined", "card declined");
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).maxOutcomeBytes(failure.length)
                .failureClassifier(e -> FailureDecision.finalFailure("declined", "card declined")).build();
        assertThatThrownBy(() -> engine.execute(key("exact"), "{}", String.class, ctx -> {
            throw new IllegalStateException("no");
        })).isInstanceOf(dev.idem.api.FinalFailureException.class).isNotInstanceOf(OutcomeNotStoredException.class);
    }
}
