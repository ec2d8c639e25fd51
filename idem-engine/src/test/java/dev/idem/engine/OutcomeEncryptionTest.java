package dev.idem.engine;

import static dev.idem.engine.ProtectionFixture.PAN;
import static dev.idem.engine.ProtectionFixture.contains;
import static dev.idem.engine.ProtectionFixture.secretKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.OutcomeUnreadableException.Reason;
import dev.idem.engine.internal.Sealer;
import dev.idem.engine.protection.KeyProvider;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.testsupport.MutableClock;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;

/**
 * Outcomes and step journals encrypted at rest: what the store holds, what a replay returns,
 * rotation, and each way a record can be unreadable (a missing key id, a wrong key, altered,
 * cut short, copied to another record, not encrypted while that is refused), each answered
 * with {@link OutcomeUnreadableException} and never by running the work again.
 */
class OutcomeEncryptionTest {
    private static final KeyVersion K1 = secretKey("k1", 1);
    private static final KeyVersion K2 = secretKey("k2", 2);
    private static final String REQUEST = "{\"amount\":100,\"currency\":\"usd\",\"iban\":\"DE44500105175407324931\"}";

    private final ProtectionFixture fixture = new ProtectionFixture();
    private final MutableClock clock = fixture.clock;
    private final FaultyStore store = fixture.store;
    private final AtomicInteger runs = new AtomicInteger();

    private IdempotencyEngine engine(UnaryOperator<IdempotencyEngineBuilder> extra) {
        return fixture.engine(extra);
    }

    private IdempotencyEngine under(KeyProvider keys) {
        return engine(b -> b.encryptOutcomes(keys));
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("merchant-1", "charge", k);
    }

    private Work<Charge> charge(String id) {
        return ctx -> {
            runs.incrementAndGet();
            return new Charge(id + "-" + PAN, new BigDecimal("100.00"), "usd");
        };
    }

    private StoredRecord record(String k) {
        return store.find(key(k)).orElseThrow();
    }

    @Test
    void theStoreHoldsNeitherTheResultNorTheRequestAndAReplayReturnsTheResult() {
        IdempotencyEngine engine = under(KeyRing.of(K1));
        Charge first = engine.call(key("a"), REQUEST, Charge.class, charge("ch"));

        byte[] stored = record("a").outcome();
        assertThat(contains(stored, PAN)).isFalse();
        assertThat(contains(stored, "usd")).isFalse();
        assertThat(contains(stored, "DE44500105175407324931")).isFalse();
        assertThat(Sealer.keyIdOf(stored)).isEqualTo("k1");

        Result<Charge> replay = engine.execute(key("a"), REQUEST, Charge.class, charge("other"));
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(first);
        assertThat(runs).hasValue(1);
    }

    @Test
    void withoutEncryptionTheStoreHoldsTheResultInClear() {
        // The control of the test above: the same search finds the card number when nothing is encrypted.
        engine(b -> b).call(key("clear"), REQUEST, Charge.class, charge("ch"));
        assertThat(contains(record("clear").outcome(), PAN)).isTrue();
    }

    @Test
    void finalFailuresAndNotStoredMarkersAreEncryptedToo() {
        IdempotencyEngine engine = engine(b -> b.encryptOutcomes(KeyRing.of(K1)).maxOutcomeBytes(200)
                .failureClassifier(e -> FailureDecision.finalFailure("declined", "card " + PAN + " declined")));
        assertThatThrownBy(() -> engine.execute(key("f"), REQUEST, String.class, ctx -> {
            throw new IllegalStateException("no");
        })).hasMessageContaining("declined");
        assertThat(contains(record("f").outcome(), PAN)).isFalse();
        assertThatThrownBy(() -> engine.execute(key("f"), REQUEST, String.class, ctx -> "never"))
                .isInstanceOf(ReplayedFailureException.class).hasMessageContaining(PAN);

        assertThatThrownBy(() -> engine.execute(key("big"), REQUEST, String.class, ctx -> PAN.repeat(20)))
                .isInstanceOf(OutcomeNotStoredException.class);
        byte[] marker = record("big").outcome();
        assertThat(Sealer.keyIdOf(marker)).isEqualTo("k1");
        assertThat(contains(marker, "over the limit")).isFalse();
        assertThatThrownBy(() -> engine.execute(key("big"), REQUEST, String.class, ctx -> "never"))
                .isInstanceOf(OutcomeNotStoredException.class).hasMessageContaining("over the limit");
    }

    @Test
    void aRotatedKeyKeepsOldRecordsReadableAndWritesNewOnesUnderTheNewId() {
        Charge old = under(KeyRing.of(K1)).call(key("old"), REQUEST, Charge.class, charge("old"));

        IdempotencyEngine rotated = under(KeyRing.of(K2, K1));
        assertThat(rotated.execute(key("old"), REQUEST, Charge.class, charge("x")).value()).isEqualTo(old);
        rotated.call(key("new"), REQUEST, Charge.class, charge("new"));
        assertThat(Sealer.keyIdOf(record("old").outcome())).isEqualTo("k1");
        assertThat(Sealer.keyIdOf(record("new").outcome())).isEqualTo("k2");

        // Once the old key is dropped, its records are unreadable, and nothing runs again.
        IdempotencyEngine dropped = under(KeyRing.of(K2));
        assertThatThrownBy(() -> dropped.execute(key("old"), REQUEST, Charge.class, charge("x")))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.KEY_MISSING);
                    assertThat(e.keyId()).isEqualTo("k1");
                    assertThat(e.httpStatus()).isEqualTo(500);
                    assertThat(e).hasMessageContaining("'k1'");
                });
        assertThat(dropped.execute(key("new"), REQUEST, Charge.class, charge("x")).replayed()).isTrue();
        assertThat(runs).hasValue(2);
        assertThat(record("old").state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void anotherKeyUnderTheSameIdIsAWrongKey() {
        under(KeyRing.of(K1)).call(key("w"), REQUEST, Charge.class, charge("w"));
        assertThatThrownBy(() -> under(KeyRing.of(secretKey("k1", 9))).call(key("w"), REQUEST, Charge.class, charge("x")))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.WRONG_KEY);
                    assertThat(e.keyId()).isEqualTo("k1");
                });
        assertThat(runs).hasValue(1);
    }

    @Test
    void anAlteredCiphertextIsTamperedAndTheWorkDoesNotRunAgain() {
        IdempotencyEngine engine = under(KeyRing.of(K1));
        store.outcomeWritten = b -> {
            byte[] altered = b.clone();
            altered[altered.length - 20] ^= 1;
            return altered;
        };
        engine.call(key("t"), REQUEST, Charge.class, charge("t"));
        store.outcomeWritten = null;
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> engine.call(key("t"), REQUEST, Charge.class, charge("x")))
                    .isInstanceOfSatisfying(OutcomeUnreadableException.class,
                            e -> assertThat(e.reason()).isEqualTo(Reason.TAMPERED));
        }
        assertThat(runs).hasValue(1);
    }

    @Test
    void aCutShortRecordIsTruncated() {
        IdempotencyEngine engine = under(KeyRing.of(K1));
        for (int keep : new int[] {1, 10, 30, 60}) {
            store.outcomeWritten = b -> Arrays.copyOf(b, Math.min(keep, b.length - 1));
            String k = "cut" + keep;
            engine.call(key(k), REQUEST, Charge.class, charge(k));
            store.outcomeWritten = null;
            assertThatThrownBy(() -> engine.call(key(k), REQUEST, Charge.class, charge("x")))
                    .isInstanceOfSatisfying(OutcomeUnreadableException.class,
                            e -> assertThat(e.reason()).isEqualTo(Reason.TRUNCATED));
        }
        assertThat(runs).hasValue(4);
    }

    @Test
    void anOutcomeCopiedToAnotherRecordDoesNotDecrypt() {
        IdempotencyEngine engine = under(KeyRing.of(K1));
        engine.call(key("src"), REQUEST, Charge.class, charge("src"));
        StoredRecord source = record("src");
        // Another key, same request: the store holds the copied bytes for it.
        store.claim(key("dst"), source.fingerprint(), 7, java.time.Duration.ofSeconds(30), java.time.Duration.ofHours(1));
        assertThat(store.complete(key("dst"), 7, source.outcome(), java.time.Duration.ofHours(1))).isTrue();

        assertThatThrownBy(() -> engine.call(key("dst"), REQUEST, Charge.class, charge("x")))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.TAMPERED));
        assertThat(runs).hasValue(1);
    }

    @Test
    void anEngineWithoutKeysNamesTheKeyIdItLacks() {
        under(KeyRing.of(K1)).call(key("n"), REQUEST, Charge.class, charge("n"));
        assertThatThrownBy(() -> engine(b -> b).call(key("n"), REQUEST, Charge.class, charge("x")))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.KEY_MISSING);
                    assertThat(e.keyId()).isEqualTo("k1");
                });
        assertThat(runs).hasValue(1);
    }

    @Test
    void recordsStoredBeforeEncryptionWasTurnedOnAreReadUnlessRefused() {
        Charge clear = engine(b -> b).call(key("before"), REQUEST, Charge.class, charge("before"));
        assertThat(under(KeyRing.of(K1)).call(key("before"), REQUEST, Charge.class, charge("x"))).isEqualTo(clear);

        IdempotencyEngine strict = engine(b -> b.encryptOutcomes(KeyRing.of(K1)).refuseUnencryptedRecords());
        assertThatThrownBy(() -> strict.call(key("before"), REQUEST, Charge.class, charge("x")))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.NOT_ENCRYPTED));
        assertThat(runs).hasValue(1);
    }

    @Test
    void theWarningForARefusedPlaintextRecordNamesNoKeyIdAndAMissingKeyIsNamed() {
        engine(b -> b).call(key("clear"), REQUEST, Charge.class, charge("clear"));
        under(KeyRing.of(K1)).call(key("sealed"), REQUEST, Charge.class, charge("sealed"));
        IdempotencyEngine strict = engine(b -> b.encryptOutcomes(KeyRing.of(K2)).refuseUnencryptedRecords());

        List<String> warnings = warningsWhile(() -> {
            assertThatThrownBy(() -> strict.call(key("clear"), REQUEST, Charge.class, charge("x")))
                    .isInstanceOf(OutcomeUnreadableException.class);
            assertThatThrownBy(() -> strict.call(key("sealed"), REQUEST, Charge.class, charge("x")))
                    .isInstanceOf(OutcomeUnreadableException.class);
        });

        assertThat(warnings).hasSize(2);
        assertThat(warnings.get(0)).contains("(NOT_ENCRYPTED)").doesNotContain("key id");
        assertThat(warnings.get(1)).contains("(KEY_MISSING, key id k1)");
        assertThat(runs).hasValue(2);
    }

    /** The engine's WARNING lines (System.Logger over java.util.logging) while {@code action} runs. */
    private static List<String> warningsWhile(Runnable action) {
        Logger log = Logger.getLogger(IdempotencyEngine.class.getName());
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel() == java.util.logging.Level.WARNING) {
                    lines.add(new SimpleFormatter().formatMessage(r));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(capture);
        try {
            action.run();
        } finally {
            log.removeHandler(capture);
        }
        return lines;
    }

    @Test
    void aKeyProviderThatFailsOnWriteLeavesTheEffectAndStoresANotStoredMarker() {
        AtomicInteger calls = new AtomicInteger();
        KeyProvider failing = new KeyProvider() {
            @Override
            public KeyVersion current() {
                if (calls.incrementAndGet() > 1) {
                    throw new IllegalStateException("KMS unreachable");
                }
                return K1;
            }

            @Override
            public KeyVersion find(String id) {
                return null;
            }
        };
        IdempotencyEngine engine = under(failing);
        assertThatThrownBy(() -> engine.call(key("kms"), REQUEST, Charge.class, charge("kms")))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> {
                    assertThat(e.replayed()).isFalse();
                    // The provider's exception by its class only: its message may name the key (a KMS ARN).
                    assertThat(e.reason()).contains("could not be encrypted")
                            .contains(IllegalStateException.class.getName()).doesNotContain("KMS unreachable");
                });
        assertThatThrownBy(() -> engine.call(key("kms"), REQUEST, Charge.class, charge("x")))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e -> assertThat(e.replayed()).isTrue());
        assertThat(runs).hasValue(1);
    }

    @Test
    void aKeyProviderThatFailsOnReadIsAnUnreadableRecord() {
        under(KeyRing.of(K1)).call(key("r"), REQUEST, Charge.class, charge("r"));
        KeyProvider failing = new KeyProvider() {
            @Override
            public KeyVersion current() {
                return K1;
            }

            @Override
            public KeyVersion find(String id) {
                throw new IllegalStateException("KMS unreachable");
            }
        };
        assertThatThrownBy(() -> under(failing).call(key("r"), REQUEST, Charge.class, charge("x")))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.KEY_PROVIDER_FAILED);
                    assertThat(e.getCause()).hasMessage("KMS unreachable");
                });
        assertThat(runs).hasValue(1);
    }

    /** A key handed back keeps a 1 ms lease, which the simulated clock must pass. */
    private void handedBackLeaseLapses() {
        clock.advance(java.time.Duration.ofMillis(5));
    }

    @Test
    void theStepJournalIsEncryptedAndAnUnreadableOneRunsNothing() throws Exception {
        AtomicInteger reserved = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger(1);
        Work<String> saga = ctx -> {
            runs.incrementAndGet();
            String r = ctx.step("reserve", String.class, () -> {
                reserved.incrementAndGet();
                return "reservation-" + PAN;
            });
            if (failures.getAndDecrement() > 0) {
                throw new IllegalStateException("provider timed out");
            }
            return "done:" + r;
        };
        IdempotencyEngine engine = under(KeyRing.of(K1));
        assertThatThrownBy(() -> engine.call(key("s"), REQUEST, String.class, saga)).hasMessage("provider timed out");
        handedBackLeaseLapses();
        byte[] journal = record("s").journal();
        assertThat(Sealer.keyIdOf(journal)).isEqualTo("k1");
        assertThat(contains(journal, PAN)).isFalse();
        assertThat(contains(journal, "reserve")).isFalse();

        // Without its key the journal cannot be read: the key is handed back and nothing runs.
        IdempotencyEngine keyless = under(KeyRing.of(K2));
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> keyless.call(key("s"), REQUEST, String.class, saga))
                    .isInstanceOfSatisfying(OutcomeUnreadableException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.KEY_MISSING);
                        assertThat(e.keyId()).isEqualTo("k1");
                        assertThat(e).hasMessageContaining("step journal");
                    });
            handedBackLeaseLapses();
        }
        assertThat(runs).hasValue(1);
        assertThat(record("s").state()).isEqualTo(RecordState.IN_PROGRESS);

        // With the key back, the retry resumes: the journaled step is not run again.
        assertThat(engine.call(key("s"), REQUEST, String.class, saga)).isEqualTo("done:reservation-" + PAN);
        assertThat(reserved).hasValue(1);
        assertThat(runs).hasValue(2);
    }

    @Test
    void anAlteredJournalRunsNothing() {
        IdempotencyEngine engine = under(KeyRing.of(K1));
        store.journalWritten = b -> {
            byte[] altered = b.clone();
            altered[altered.length - 1] ^= 1;
            return altered;
        };
        Work<String> saga = ctx -> {
            runs.incrementAndGet();
            ctx.step("reserve", String.class, () -> "r");
            throw new IllegalStateException("later");
        };
        assertThatThrownBy(() -> engine.call(key("j"), REQUEST, String.class, saga)).hasMessage("later");
        store.journalWritten = null;
        handedBackLeaseLapses();
        assertThatThrownBy(() -> engine.call(key("j"), REQUEST, String.class, saga))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.TAMPERED));
        assertThat(runs).hasValue(1);
    }

    @Test
    void anAsyncCallWithAnUnreadableJournalCompletesWithTheError() throws Exception {
        IdempotencyEngine engine = under(KeyRing.of(K1));
        assertThatThrownBy(() -> engine.call(key("as"), REQUEST, String.class, ctx -> {
            ctx.step("reserve", String.class, () -> "r");
            throw new IllegalStateException("later");
        })).hasMessage("later");
        handedBackLeaseLapses();

        IdempotencyEngine keyless = engine(b -> b.encryptOutcomes(KeyRing.of(K2)).asyncExecutor(Runnable::run));
        CompletableFuture<Result<String>> answer = keyless.executeAsync(key("as"), REQUEST, String.class, ctx -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture("never");
        });
        assertThatThrownBy(() -> answer.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(OutcomeUnreadableException.class);
        assertThat(runs).hasValue(0);
    }

    @Test
    void asyncCallsAndTheNearCacheReplayDecrypted() throws Exception {
        IdempotencyEngine engine = engine(b -> b.encryptOutcomes(KeyRing.of(K1)).nearCache(10)
                .asyncExecutor(Runnable::run));
        Charge first = engine.executeAsync(key("ac"), REQUEST, Charge.class, ctx -> {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture(new Charge(PAN, BigDecimal.ONE, "usd"));
        }).get(10, TimeUnit.SECONDS).value();
        assertThat(contains(record("ac").outcome(), PAN)).isFalse();
        int claims = store.claims.get();
        Result<Charge> cached = engine.execute(key("ac"), REQUEST, Charge.class, charge("x"));
        assertThat(cached.replayed()).isTrue();
        assertThat(cached.value()).isEqualTo(first);
        assertThat(store.claims).hasValue(claims);
        assertThat(runs).hasValue(1);
    }

    @Test
    void workThatCompletesItselfStoresTheSealedOutcome() {
        IdempotencyEngine engine = under(KeyRing.of(K1));
        AtomicWork<Object> selfCompleting = (ctx, completion) -> {
            runs.incrementAndGet();
            Map<String, Object> value = Map.of("card", PAN);
            engine.store().complete(ctx.key(), ctx.fencingToken(), completion.encode(value), completion.ttl());
            return value;
        };
        Result<Object> first = engine.executeAtomically(key("at"), REQUEST, Object.class, CallOptions.defaults(),
                selfCompleting);
        assertThat(first.stored()).isTrue();
        assertThat(first.value()).isEqualTo(Map.of("card", PAN));
        assertThat(contains(record("at").outcome(), PAN)).isFalse();
        assertThat(engine.executeAtomically(key("at"), REQUEST, Object.class, CallOptions.defaults(), selfCompleting)
                .value()).isEqualTo(Map.of("card", PAN));
        assertThat(runs).hasValue(1);
    }

    @Test
    void theBuilderRefusesContradictions() {
        assertThatThrownBy(() -> IdempotencyEngine.builder().store(store).refuseUnencryptedRecords().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("encryptOutcomes");
        KeyProvider empty = new KeyProvider() {
            @Override
            public KeyVersion current() {
                return null;
            }

            @Override
            public KeyVersion find(String id) {
                return null;
            }
        };
        assertThatThrownBy(() -> IdempotencyEngine.builder().store(store).encryptOutcomes(empty).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no current key");
        assertThatThrownBy(() -> IdempotencyEngine.builder().encryptOutcomes(KeyRing.of(K1))
                .encryptOutcomes(KeyRing.of(K2))).isInstanceOf(IllegalStateException.class);
    }
}
