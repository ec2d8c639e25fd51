package dev.idem.engine;

import static dev.idem.engine.ProtectionFixture.PAN;
import static dev.idem.engine.ProtectionFixture.contains;
import static dev.idem.engine.ProtectionFixture.secretKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.idem.api.IdempotencyException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.RecordState;
import dev.idem.engine.OutcomeUnreadableException.Reason;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.OutcomeFilter;
import dev.idem.testsupport.MutableClock;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The hook that decides what of a result is stored: fields left out, a reference kept and the
 * result rebuilt on replay, a filter that throws (the effect stands, a "not stored" marker is
 * stored) or cannot rebuild (that replay fails, the record stays), per engine and per call, and
 * applied before encryption.
 */
class OutcomeFilterTest {
    private static final String REQUEST = "{\"amount\":100}";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final ProtectionFixture fixture = new ProtectionFixture();
    private final MutableClock clock = fixture.clock;
    private final FaultyStore store = fixture.store;
    private final AtomicInteger runs = new AtomicInteger();

    /** The result type: a charge with the card it was made with. */
    public record Payment(String id, String card, BigDecimal amount) {
    }

    private final Work<Payment> pay = ctx -> {
        runs.incrementAndGet();
        return new Payment("pay_" + runs.get(), PAN, new BigDecimal("0.1000000000000000055511151231257827"));
    };

    private IdempotencyEngine engine(UnaryOperator<IdempotencyEngineBuilder> extra) {
        return fixture.engine(extra);
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("merchant-1", "pay", k);
    }

    @Test
    void removedFieldsAreNotStoredButTheFirstCallerGetsThem() {
        IdempotencyEngine engine = engine(b -> b.outcomeFilter(OutcomeFilter.removing("/card")));
        Payment first = engine.call(key("r"), REQUEST, Payment.class, pay);
        assertThat(first.card()).isEqualTo(PAN);
        assertThat(contains(store.find(key("r")).orElseThrow().outcome(), PAN)).isFalse();

        Payment replay = engine.call(key("r"), REQUEST, Payment.class, pay);
        assertThat(replay).isEqualTo(new Payment(first.id(), null, first.amount()));
        assertThat(runs).hasValue(1);
    }

    @Test
    void bytesTheWorkRenderedAreStoredAndReplayedPastAnEngineWideFilter() {
        // An engine-wide filter is meant for typed results; an HTTP frame or other StoredBytes is not JSON.
        IdempotencyEngine engine = engine(b -> b.outcomeFilter(OutcomeFilter.removing("/card")));
        byte[] rendered = {0, 1, 2, (byte) 0xff, '{'};
        Work<StoredBytes> render = ctx -> {
            runs.incrementAndGet();
            return StoredBytes.of(rendered);
        };

        StoredBytes first = engine.call(key("b"), REQUEST, StoredBytes.class, render);
        StoredBytes replay = engine.call(key("b"), REQUEST, StoredBytes.class, render);

        assertThat(first.toByteArray()).isEqualTo(rendered);
        assertThat(replay.toByteArray()).isEqualTo(rendered);
        assertThat(store.find(key("b")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(runs).hasValue(1);
    }

    @Test
    void anUntypedFirstCallGetsTheWholeResult() {
        IdempotencyEngine engine = engine(b -> b.outcomeFilter(OutcomeFilter.removing("/card", "/cards/0")));
        Object first = engine.execute(key("u"), REQUEST, ctx -> Map.of("card", PAN, "cards", List.of(PAN, "x")))
                .value();
        assertThat(first).isEqualTo(Map.of("card", PAN, "cards", List.of(PAN, "x")));
        Map<String, Object> expected = new HashMap<>();
        expected.put("cards", java.util.Arrays.asList(null, "x"));
        assertThat(engine.execute(key("u"), REQUEST, ctx -> "never").value()).isEqualTo(expected);
    }

    @Test
    void aReferenceIsStoredAndTheResultRebuiltOnReplay() {
        Map<String, Payment> ledger = new HashMap<>();
        OutcomeFilter byReference = new OutcomeFilter() {
            @Override
            public JsonNode keep(IdempotencyKey key, JsonNode result) {
                return JsonNodeFactory.instance.objectNode().put("ref", result.path("id").asText());
            }

            @Override
            public JsonNode rebuild(IdempotencyKey key, JsonNode stored) {
                return MAPPER.valueToTree(ledger.get(stored.path("ref").asText()));
            }
        };
        IdempotencyEngine engine = engine(b -> b.outcomeFilter(byReference));
        Payment first = engine.call(key("ref"), REQUEST, Payment.class, ctx -> {
            Payment p = pay.execute(ctx);
            ledger.put(p.id(), p);
            return p;
        });
        byte[] stored = store.find(key("ref")).orElseThrow().outcome();
        assertThat(new String(stored, 1, stored.length - 1, java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("{\"ref\":\"pay_1\"}");
        assertThat(engine.call(key("ref"), REQUEST, Payment.class, pay)).isEqualTo(first);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aFilterThatThrowsLeavesTheEffectAndStoresANotStoredMarker() {
        OutcomeFilter broken = (key, result) -> {
            throw new IllegalStateException("redaction service down");
        };
        IdempotencyEngine engine = engine(b -> b.outcomeFilter(broken));
        assertThatThrownBy(() -> engine.call(key("t"), REQUEST, Payment.class, pay))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> {
                    assertThat(e.replayed()).isFalse();
                    assertThat(e.reason()).contains("outcome filter threw").contains("redaction service down");
                    assertThat(e.getCause()).hasMessage("redaction service down");
                });
        assertThatThrownBy(() -> engine.call(key("t"), REQUEST, Payment.class, pay))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> {
                    assertThat(e.replayed()).isTrue();
                    assertThat(e.reason()).contains("redaction service down");
                });
        assertThat(runs).hasValue(1);
        assertThat(store.find(key("t")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void aFilterThatCannotRebuildFailsThatReplayAndKeepsTheRecord() {
        AtomicInteger down = new AtomicInteger(1);
        OutcomeFilter flaky = new OutcomeFilter() {
            @Override
            public JsonNode keep(IdempotencyKey key, JsonNode result) {
                return result;
            }

            @Override
            public JsonNode rebuild(IdempotencyKey key, JsonNode stored) {
                if (down.getAndDecrement() > 0) {
                    throw new IllegalStateException("ledger unavailable");
                }
                return stored;
            }
        };
        IdempotencyEngine engine = engine(b -> b.outcomeFilter(flaky));
        Payment first = engine.call(key("rb"), REQUEST, Payment.class, pay);
        assertThatThrownBy(() -> engine.call(key("rb"), REQUEST, Payment.class, pay))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.REBUILD_FAILED);
                    assertThat(e.getCause()).hasMessage("ledger unavailable");
                });
        assertThat(engine.call(key("rb"), REQUEST, Payment.class, pay)).isEqualTo(first);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aCallsFilterReplacesTheEnginesAndDecimalsStayExact() {
        IdempotencyEngine engine = engine(b -> b.outcomeFilter(OutcomeFilter.removing("/card")));
        CallOptions keepAll = CallOptions.builder().outcomeFilter((key, result) -> result).build();
        Payment first = engine.execute(key("c"), REQUEST, Payment.class, keepAll, pay).value();
        Payment replay = engine.execute(key("c"), REQUEST, Payment.class, keepAll, pay).value();
        assertThat(replay).isEqualTo(first);
        assertThat(replay.amount().toPlainString()).isEqualTo("0.1000000000000000055511151231257827");
    }

    @Test
    void aFilteredDecimalKeepsItsTrailingZeros() {
        // A filter works on a JSON tree; an amount written as 10.50 must replay as 10.50, not 10.5.
        IdempotencyEngine engine = engine(b -> b.outcomeFilter(OutcomeFilter.removing("/card")));
        Work<Payment> priced = ctx -> new Payment("pay_z", PAN, new BigDecimal("10.50"));
        engine.call(key("z"), REQUEST, Payment.class, priced);
        Payment replay = engine.call(key("z"), REQUEST, Payment.class, priced);
        assertThat(replay.amount().toPlainString()).isEqualTo("10.50");
    }

    @Test
    void theFilterRunsBeforeEncryption() {
        IdempotencyEngine engine = engine(b -> b.outcomeFilter(OutcomeFilter.removing("/card"))
                .encryptOutcomes(KeyRing.of(secretKey("k1", 1))));
        Payment first = engine.call(key("e"), REQUEST, Payment.class, pay);
        // Another engine with the key and no filter reads what was stored: the card is not in it.
        IdempotencyEngine reader = engine(b -> b.encryptOutcomes(KeyRing.of(secretKey("k1", 1))));
        assertThat(reader.call(key("e"), REQUEST, Payment.class, pay)).isEqualTo(new Payment(first.id(), null,
                first.amount()));
    }

    @Test
    void aFilterThatThrowsInWorkThatCompletesItselfFailsTheWork() {
        IdempotencyEngine engine = engine(b -> b.outcomeFilter((key, result) -> {
            throw new IllegalStateException("redaction service down");
        }));
        AtomicWork<Payment> selfCompleting = (ctx, completion) -> {
            Payment p = pay.execute(ctx);
            engine.store().complete(ctx.key(), ctx.fencingToken(), completion.encode(p), completion.ttl());
            return p;
        };
        // Its transaction would fail with it, so its effect would not stand: the key is released.
        assertThatThrownBy(() -> engine.executeAtomically(key("a"), REQUEST, Payment.class, selfCompleting))
                .isInstanceOf(IdempotencyException.class).hasMessageContaining("redaction service down");
        assertThat(store.find(key("a")).orElseThrow().state()).isEqualTo(RecordState.RELEASED);
    }

    @Test
    void removingRejectsWhatIsNotAPointer() {
        assertThatThrownBy(() -> OutcomeFilter.removing("card")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("card");
    }
}
