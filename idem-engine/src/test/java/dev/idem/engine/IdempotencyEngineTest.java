package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.jsontype.BasicPolymorphicTypeValidator;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidIdempotencyKeyException;
import dev.idem.api.InvalidRequestException;
import dev.idem.api.KeyReusedException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.engine.internal.json.PointerSet;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class IdempotencyEngineTest {
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore memory = MemoryIdempotencyStore.builder().clock(clock).build();
    private final FaultyStore store = new FaultyStore(memory);
    private final List<IdempotencyEvent> events = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger runs = new AtomicInteger();

    private IdempotencyEngineBuilder untimed() {
        return IdempotencyEngine.builder().store(store).listener(events::add)
                .lease(Duration.ofSeconds(30)).ttl(Duration.ofHours(24));
    }

    private IdempotencyEngineBuilder builder() {
        return untimed().ticker(ClockTicker.of(clock));
    }

    private final IdempotencyEngine engine = builder().build();

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("tenant-1", "create-charge", k);
    }

    private Work<Charge> charge(String id) {
        return ctx -> {
            runs.incrementAndGet();
            return new Charge(id, new BigDecimal("10.50"), "EUR");
        };
    }

    private List<Type> eventTypes() {
        synchronized (events) {
            return events.stream().map(IdempotencyEvent::type).toList();
        }
    }

    @Test
    void firstCallRunsAndRetriesReplayAnEqualValue() {
        Result<Charge> first = engine.execute(key("k1"), Map.of("amount", 1050), Charge.class, charge("ch_1"));
        Result<Charge> second = engine.execute(key("k1"), Map.of("amount", 1050), Charge.class, charge("ch_2"));
        Result<Charge> third = engine.execute(key("k1"), "{\"amount\": 1050.0}", Charge.class, charge("ch_3"));

        assertThat(runs).hasValue(1);
        assertThat(first.replayed()).isFalse();
        assertThat(first.stored()).isTrue();
        assertThat(second.replayed()).isTrue();
        assertThat(third.replayed()).isTrue();
        assertThat(second.value()).isEqualTo(first.value()).isEqualTo(third.value());
        assertThat(eventTypes()).containsExactly(Type.FIRST_EXECUTION, Type.REPLAY, Type.REPLAY);
    }

    @Test
    void genericResultsReplayEqualThroughATypeReference() {
        TypeReference<List<Charge>> type = new TypeReference<>() { };
        Work<List<Charge>> work = ctx -> {
            runs.incrementAndGet();
            return List.of(new Charge("a", BigDecimal.ONE, "EUR"), new Charge("b", BigDecimal.TEN, "USD"));
        };
        Result<List<Charge>> first = engine.execute(key("list"), "{}", type, work);
        Result<List<Charge>> replay = engine.execute(key("list"), "{}", type, work);
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(first.value());
        assertThat(replay.value().get(0)).isInstanceOf(Charge.class);
        assertThat(runs).hasValue(1);
    }

    @Test
    void untypedExecuteReplaysPlainJsonValues() {
        Result<Object> first = engine.execute(key("plain"), "{}", ctx -> Map.of("id", "x", "n", 3));
        Result<Object> replay = engine.execute(key("plain"), "{}", ctx -> Map.of("id", "y", "n", 4));
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(first.value());
    }

    @Test
    void aKeyReusedWithADifferentRequestIsRejectedWithoutRunning() {
        engine.execute(key("k1"), Map.of("amount", 1050), Charge.class, charge("ch_1"));
        assertThatThrownBy(() -> engine.execute(key("k1"), Map.of("amount", 9999), Charge.class, charge("ch_2")))
                .isInstanceOf(KeyReusedException.class)
                .satisfies(e -> assertThat(((KeyReusedException) e).httpStatus()).isEqualTo(422));
        assertThat(runs).hasValue(1);
        assertThat(eventTypes()).contains(Type.KEY_REUSED);
    }

    @Test
    void keyReuseWinsOverInProgress() throws Exception {
        IdempotencyKey k = key("busy");
        store.claim(k, engine.parts.fingerprinter().fingerprint(k.operation(), "{\"a\":1}", PointerSet.EMPTY),
                42, Duration.ofSeconds(30), Duration.ofHours(1));
        assertThatThrownBy(() -> engine.execute(k, "{\"a\":2}", Charge.class, charge("x")))
                .isInstanceOf(KeyReusedException.class);
        assertThatThrownBy(() -> engine.execute(k, "{\"a\":1}", Charge.class, charge("x")))
                .isInstanceOf(RequestInProgressException.class)
                .satisfies(e -> {
                    RequestInProgressException r = (RequestInProgressException) e;
                    assertThat(r.httpStatus()).isEqualTo(409);
                    assertThat(r.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
                });
        assertThat(runs).hasValue(0);
    }

    @Test
    void retryAfterHintNeverExceedsTheLeaseLeft() {
        IdempotencyKey k = key("almost");
        store.claim(k, engine.parts.fingerprinter().fingerprint(k.operation(), "{}", PointerSet.EMPTY),
                42, Duration.ofMillis(300), Duration.ofHours(1));
        clock.advance(Duration.ofMillis(200));
        assertThatThrownBy(() -> engine.execute(k, "{}", Charge.class, charge("x")))
                .isInstanceOfSatisfying(RequestInProgressException.class,
                        e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofMillis(100)));
    }

    @Test
    void transientFailureReleasesTheKeySoTheRetryRunsOnceMore() {
        AtomicInteger calls = new AtomicInteger();
        Work<String> flaky = ctx -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("gateway timeout");
            }
            return "ok on attempt " + ctx.attempt();
        };
        assertThatThrownBy(() -> engine.execute(key("t"), "{}", String.class, flaky))
                .isInstanceOf(IllegalStateException.class).hasMessage("gateway timeout");
        assertThat(store.find(key("t")).orElseThrow().state()).isEqualTo(RecordState.RELEASED);

        Result<String> retry = engine.execute(key("t"), "{}", String.class, flaky);
        assertThat(retry.value()).isEqualTo("ok on attempt 2");
        assertThat(retry.attempt()).isEqualTo(2);
        assertThat(engine.execute(key("t"), "{}", String.class, flaky).replayed()).isTrue();
        assertThat(calls).hasValue(2);
        assertThat(eventTypes()).containsExactly(Type.RELEASED_ON_TRANSIENT_FAILURE, Type.FIRST_EXECUTION, Type.REPLAY);
    }

    @Test
    void checkedExceptionsAreWrappedAndStillRelease() {
        assertThatThrownBy(() -> engine.execute(key("io"), "{}", String.class, ctx -> {
            throw new IOException("socket closed");
        })).isInstanceOf(WorkFailedException.class).hasCauseInstanceOf(IOException.class);
        assertThat(store.find(key("io")).orElseThrow().state()).isEqualTo(RecordState.RELEASED);
    }

    @Test
    void finalFailureIsStoredAndReplayedWithoutRunning() {
        IdempotencyEngine classifying = builder().failureClassifier(e -> e instanceof IllegalArgumentException
                ? FailureDecision.finalFailure("card_declined", e.getMessage())
                : FailureDecision.transientFailure()).build();
        Work<String> declined = ctx -> {
            runs.incrementAndGet();
            throw new IllegalArgumentException("insufficient funds");
        };
        assertThatThrownBy(() -> classifying.execute(key("f"), "{}", String.class, declined))
                .isInstanceOfSatisfying(FinalFailureException.class, e -> {
                    assertThat(e).isNotInstanceOf(ReplayedFailureException.class);
                    assertThat(e.code()).isEqualTo("card_declined");
                    assertThat(e.detail()).isEqualTo("insufficient funds");
                    assertThat(e.httpStatus()).isEqualTo(422);
                })
                .hasCauseInstanceOf(IllegalArgumentException.class);
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> classifying.execute(key("f"), "{}", String.class, declined))
                    .isInstanceOfSatisfying(ReplayedFailureException.class, e -> {
                        assertThat(e.code()).isEqualTo("card_declined");
                        assertThat(e.detail()).isEqualTo("insufficient funds");
                    });
        }
        assertThat(runs).hasValue(1);
        assertThat(eventTypes()).startsWith(Type.FINAL_FAILURE_STORED, Type.REPLAY);
    }

    @Test
    void errorsReleaseAndRethrow() {
        assertThatThrownBy(() -> engine.execute(key("oom"), "{}", String.class, ctx -> {
            throw new StackOverflowError("deep");
        })).isInstanceOf(StackOverflowError.class);
        assertThat(store.find(key("oom")).orElseThrow().state()).isEqualTo(RecordState.RELEASED);
        assertThat(engine.execute(key("oom"), "{}", String.class, ctx -> "fine").value()).isEqualTo("fine");
    }

    @Test
    void aWorkerThatOutlivesItsLeaseCannotStoreItsResultAndTheTakerOverWins() {
        @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array, written once from the lambda
        Result<Charge>[] second = new Result[1];
        assertThatThrownBy(() -> engine.execute(key("slow"), "{}", Charge.class, ctx -> {
            clock.advance(Duration.ofSeconds(31));
            second[0] = engine.execute(key("slow"), "{}", Charge.class, inner -> {
                assertThat(inner.attempt()).isEqualTo(2);
                assertThat(inner.fencingToken()).isNotEqualTo(ctx.fencingToken());
                return new Charge("taker-over", BigDecimal.ONE, "EUR");
            });
            return new Charge("stale", BigDecimal.ONE, "EUR");
        })).isInstanceOf(LeaseLostException.class);
        assertThat(second[0].value().getId()).isEqualTo("taker-over");
        Result<Charge> replay = engine.execute(key("slow"), "{}", Charge.class, charge("never"));
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value().getId()).isEqualTo("taker-over");
        assertThat(eventTypes()).contains(Type.LEASE_TAKEN_OVER, Type.LEASE_LOST);
    }

    @Test
    void extendingTheLeaseKeepsDuplicatesOut() {
        Result<String> r = engine.execute(key("long"), "{}", String.class, ctx -> {
            clock.advance(Duration.ofSeconds(20));
            ctx.extendLease(Duration.ofSeconds(60));
            clock.advance(Duration.ofSeconds(20));
            assertThatThrownBy(() -> engine.execute(key("long"), "{}", String.class, inner -> "dup"))
                    .isInstanceOf(RequestInProgressException.class);
            return "done";
        });
        assertThat(r.value()).isEqualTo("done");
        assertThat(r.stored()).isTrue();
    }

    @Test
    void expiredRecordsMakeTheKeyNewAndTtlIsOverridablePerCall() {
        engine.execute(key("ttl"), "{}", Charge.class, charge("a"));
        clock.advance(Duration.ofHours(24).plusMillis(1));
        assertThat(engine.execute(key("ttl"), "{}", Charge.class, charge("b")).value().getId()).isEqualTo("b");

        CallOptions shortLived = CallOptions.builder().ttl(Duration.ofMinutes(5)).lease(Duration.ofSeconds(10)).build();
        engine.execute(key("short"), "{}", Charge.class, shortLived, charge("c"));
        clock.advance(Duration.ofMinutes(4));
        assertThat(engine.execute(key("short"), "{}", Charge.class, shortLived, charge("d")).replayed()).isTrue();
        clock.advance(Duration.ofMinutes(1));
        assertThat(engine.execute(key("short"), "{}", Charge.class, shortLived, charge("e")).replayed()).isFalse();
        assertThat(runs).hasValue(4);
    }

    @Test
    void scopesAndOperationsDoNotLeakIntoEachOther() {
        engine.execute(IdempotencyKey.of("tenant-a", "charge", "same"), "{}", Charge.class, charge("a"));
        Result<Charge> b = engine.execute(IdempotencyKey.of("tenant-b", "charge", "same"), "{}", Charge.class, charge("b"));
        Result<Charge> c = engine.execute(IdempotencyKey.of("tenant-a", "refund", "same"), "{}", Charge.class, charge("c"));
        assertThat(b.replayed()).isFalse();
        assertThat(b.value().getId()).isEqualTo("b");
        assertThat(c.replayed()).isFalse();
        assertThat(runs).hasValue(3);
    }

    @Test
    void invalidKeysAreRejectedBeforeAnythingIsStored() {
        assertThatThrownBy(() -> IdempotencyKey.of("t", "op", "")).isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThatThrownBy(() -> IdempotencyKey.of("t", "op", "has space"))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("index 3");
        assertThatThrownBy(() -> IdempotencyKey.of("t", "op", "x".repeat(256)))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("256");
        assertThatThrownBy(() -> IdempotencyKey.of("", "op", "k")).isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThatThrownBy(() -> IdempotencyKey.of("t", "op\n", "k")).isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThatThrownBy(() -> engine.execute(null, "{}", Charge.class, charge("x")))
                .isInstanceOf(NullPointerException.class);
        assertThat(IdempotencyKey.of("t", "op", "x".repeat(255)).key()).hasSize(255);
        assertThat(store.claims).hasValue(0);
    }

    @Test
    void malformedOrOversizedRequestsAreRejectedBeforeAnythingIsStored() {
        for (String bad : List.of("{\"a\":1,\"a\":2}", "{\"a\":", "[NaN]", "\"\\ud800\"")) {
            assertThatThrownBy(() -> engine.execute(key("bad"), bad, Charge.class, charge("x")))
                    .isInstanceOf(InvalidRequestException.class);
        }
        IdempotencyEngine small = builder().maxRequestBytes(100).build();
        assertThatThrownBy(() -> small.execute(key("big"), new byte[101], Charge.class, charge("x")))
                .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.httpStatus()).isEqualTo(413));
        assertThat(store.claims).hasValue(0);
        assertThat(runs).hasValue(0);
        assertThat(store.find(key("bad"))).isEmpty();
    }

    @Test
    void rawBytesAreHashedAsTheyAre() {
        engine.execute(key("raw"), "abc".getBytes(StandardCharsets.UTF_8), Charge.class, charge("a"));
        assertThat(engine.execute(key("raw"), "abc".getBytes(StandardCharsets.UTF_8), Charge.class, charge("b"))
                .replayed()).isTrue();
        assertThatThrownBy(() -> engine.execute(key("raw"), "abd".getBytes(StandardCharsets.UTF_8), Charge.class,
                charge("c"))).isInstanceOf(KeyReusedException.class);
    }

    @Test
    void excludedFieldsDoNotChangeTheFingerprint() {
        IdempotencyEngine excluding = builder().excludeFromFingerprint("/sentAt").build();
        excluding.execute(key("ex"), "{\"amount\":1,\"sentAt\":\"10:00\"}", Charge.class, charge("a"));
        assertThat(excluding.execute(key("ex"), "{\"amount\":1,\"sentAt\":\"10:01\"}", Charge.class, charge("b"))
                .replayed()).isTrue();
        CallOptions perCall = CallOptions.builder().excludeFromFingerprint("/trace").build();
        excluding.execute(key("ex2"), "{\"trace\":1}", Charge.class, perCall, charge("a"));
        assertThat(excluding.execute(key("ex2"), "{\"trace\":2}", Charge.class, perCall, charge("b")).replayed())
                .isTrue();
        assertThatThrownBy(() -> excluding.execute(key("ex2"), "{\"trace\":3}", Charge.class, charge("b")))
                .isInstanceOf(KeyReusedException.class);
    }

    @Test
    void contextCarriesKeyTokenAttemptLeaseAndAStableDownstreamKey() {
        List<String> downstream = new ArrayList<>();
        Work<String> failing = ctx -> {
            assertThat(ctx.key()).isEqualTo(key("ctx"));
            assertThat(ctx.leaseDeadline()).isEqualTo(clock.instant().plusSeconds(30));
            downstream.add(ctx.downstreamKey());
            throw new IllegalStateException("retry me");
        };
        assertThatThrownBy(() -> engine.execute(key("ctx"), "{}", String.class, failing));
        Result<String> ok = engine.execute(key("ctx"), "{}", String.class, ctx -> {
            downstream.add(ctx.downstreamKey());
            return "attempt " + ctx.attempt();
        });
        assertThat(ok.value()).isEqualTo("attempt 2");
        assertThat(downstream).hasSize(2);
        assertThat(downstream.get(0)).isEqualTo(downstream.get(1)).hasSize(43).matches("[A-Za-z0-9_-]+");
        // Pinned: downstream systems dedupe on this value, so a new derivation after an upgrade
        // would let an in-flight key repeat its effect. SHA-256 of
        // "idem-downstream/v1\0" + scope + "\0" + operation + "\0" + key, base64url, computed outside Java.
        assertThat(downstream.get(0)).isEqualTo("GVeM6L0ZGEd5B5bYH9dOpJX3kDaf4TIdWv49gx2W4gw");

        // Two client keys give two downstream keys, and so do two scopes or two operations.
        String other = engine.execute(key("ctx2"), "{}", String.class, ExecutionContext::downstreamKey).value();
        assertThat(other).isEqualTo("PuLPYgtLG7aZH7-YXgcGYXOILZ0gNeMOMsops53p7o0").isNotEqualTo(downstream.get(0));
        assertThat(List.of(
                Execution.downstreamKey(IdempotencyKey.of("tenant-2", "create-charge", "ctx")),
                Execution.downstreamKey(IdempotencyKey.of("tenant-1", "refund-charge", "ctx")),
                Execution.downstreamKey(IdempotencyKey.of("tenant-1", "create-charg", "ectx"))))
                .doesNotContain(downstream.get(0)).doesNotHaveDuplicates();
    }

    @Test
    void aStoreThatIsDownOnClaimNeverRunsTheWork() {
        store.claimDown = true;
        assertThatThrownBy(() -> engine.execute(key("down"), "{}", Charge.class, charge("x")))
                .isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.httpStatus()).isEqualTo(503));
        assertThat(runs).hasValue(0);
        store.claimDown = false;
        assertThat(engine.execute(key("down"), "{}", Charge.class, charge("x")).replayed()).isFalse();
    }

    @Test
    void aStoreThatFailsOnCompleteReturnsTheResultMarkedNotStored() {
        store.completeDown = true;
        IdempotencyEngine e = builder().sleeper(d -> { }).build();
        Result<Charge> r = e.execute(key("c"), "{}", Charge.class, charge("x"));
        assertThat(r.value().getId()).isEqualTo("x");
        assertThat(r.stored()).isFalse();
        assertThat(store.completes).hasValue(3);
        // The claim stays in progress, so an immediate duplicate does not run the work again.
        assertThatThrownBy(() -> e.execute(key("c"), "{}", Charge.class, charge("y")))
                .isInstanceOf(RequestInProgressException.class);
        assertThat(runs).hasValue(1);
        assertThat(eventTypes()).contains(Type.OUTCOME_NOT_STORED);
    }

    @Test
    void aTransientCompleteFailureIsRetried() {
        IdempotencyStore flaky = new FaultyStore(memory) {
            final AtomicInteger n = new AtomicInteger();

            @Override
            public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
                if (n.incrementAndGet() == 1) {
                    throw new StoreUnavailableException("timeout after the write", null);
                }
                return super.complete(key, token, outcome, ttl);
            }
        };
        IdempotencyEngine e = IdempotencyEngine.builder().store(flaky).ticker(ClockTicker.of(clock)).sleeper(d -> { }).build();
        assertThat(e.execute(key("retry-complete"), "{}", Charge.class, charge("x")).stored()).isTrue();
        assertThat(e.execute(key("retry-complete"), "{}", Charge.class, charge("y")).replayed()).isTrue();
    }

    @Test
    void aStoreThatRefusesTheOutcomeAndTheMarkerKeepsTheClaim() {
        IdempotencyStore refusing = new FaultyStore(memory) {
            @Override
            public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
                throw new StoreUnavailableException("item too large", null, false);
            }
        };
        IdempotencyEngine e = IdempotencyEngine.builder().store(refusing).ticker(ClockTicker.of(clock)).sleeper(d -> { }).build();
        assertThatThrownBy(() -> e.execute(key("refused"), "{}", Charge.class, charge("x")))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class,
                        x -> assertThat(x.reason()).contains("item too large"));
        // The work ran: the engine never frees the key; the lease holds duplicates off.
        assertThat(memory.find(key("refused")).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(runs).hasValue(1);
    }

    @Test
    void nearCacheServesReplaysWithoutAStoreRoundTrip() {
        IdempotencyEngine cached = builder().nearCache(100).build();
        cached.execute(key("hot"), "{}", Charge.class, charge("a"));
        int claimsBefore = store.claims.get();
        for (int i = 0; i < 10; i++) {
            assertThat(cached.execute(key("hot"), "{}", Charge.class, charge("b")).replayed()).isTrue();
        }
        assertThat(store.claims.get()).isEqualTo(claimsBefore);
        assertThatThrownBy(() -> cached.execute(key("hot"), "{\"other\":1}", Charge.class, charge("c")))
                .isInstanceOf(KeyReusedException.class);
        clock.advance(Duration.ofHours(25));
        assertThat(cached.execute(key("hot"), "{}", Charge.class, charge("d")).value().getId()).isEqualTo("d");
    }

    @Test
    void nearCacheNeverHoldsInProgressRecords() {
        IdempotencyEngine cached = builder().nearCache(100).build();
        cached.execute(key("ip"), "{}", String.class, ctx -> {
            assertThatThrownBy(() -> cached.execute(key("ip"), "{}", String.class, c -> "dup"))
                    .isInstanceOf(RequestInProgressException.class);
            assertThatThrownBy(() -> cached.execute(key("ip"), "{}", String.class, c -> "dup"))
                    .isInstanceOf(RequestInProgressException.class);
            return "done";
        });
        assertThat(cached.execute(key("ip"), "{}", String.class, c -> "again").value()).isEqualTo("done");
    }

    @Test
    @SuppressWarnings("deprecation") // EVERYTHING is the widest typing a user could still switch on
    void storedOutcomesCarryNoTypeInformationEvenWithADefaultTypingMapper() {
        ObjectMapper typing = new ObjectMapper();
        typing.activateDefaultTyping(BasicPolymorphicTypeValidator.builder().allowIfBaseType(Object.class).build(),
                ObjectMapper.DefaultTyping.EVERYTHING);
        IdempotencyEngine e = builder().objectMapper(typing).build();
        e.execute(key("poly"), "{}", Charge.class, charge("p"));
        StoredRecord rec = store.find(key("poly")).orElseThrow();
        assertThat(new String(rec.outcome(), StandardCharsets.UTF_8)).doesNotContain("dev.idem").doesNotContain("@class");
        assertThat(e.execute(key("poly"), "{}", Charge.class, charge("q")).value().getId()).isEqualTo("p");
    }

    @Test
    void eventsCarryScopeOperationAndDurationButNoPayload() {
        java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong(7_000_000_000L);
        IdempotencyEngine timed = untimed().ticker(nanos::get).build();
        timed.execute(key("ev"), "{\"secret\":\"4111111111111111\"}", Charge.class, ctx -> {
            nanos.addAndGet(1_234_567);
            return new Charge("a", BigDecimal.ONE, "EUR");
        });
        nanos.addAndGet(5_000);
        timed.execute(key("ev"), "{\"secret\":\"4111111111111111\"}", Charge.class, charge("b"));
        IdempotencyEvent e = events.get(0);
        assertThat(e.scope()).isEqualTo("tenant-1");
        assertThat(e.operation()).isEqualTo("create-charge");
        assertThat(e.attempt()).isEqualTo(1);
        // The call's own time on the engine's ticker, start to end: exactly what the work took here.
        assertThat(e.duration()).isEqualTo(Duration.ofNanos(1_234_567));
        assertThat(events.get(1).type()).isEqualTo(Type.REPLAY);
        assertThat(events.get(1).duration()).isEqualTo(Duration.ZERO);
        assertThat(e.toString()).doesNotContain("4111");
    }

    @Test
    void aThrowingListenerDoesNotBreakExecution() {
        IdempotencyEngine e = IdempotencyEngine.builder().store(store).listener(ev -> {
            throw new IllegalStateException("metrics down");
        }).build();
        assertThat(e.execute(key("l"), "{}", Charge.class, charge("a")).value().getId()).isEqualTo("a");
    }
}
