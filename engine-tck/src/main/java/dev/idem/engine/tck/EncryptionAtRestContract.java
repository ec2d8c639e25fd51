package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.LeaseLostException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.FailureClassifier;
import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.OutcomeUnreadableException;
import dev.idem.engine.Work;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.store.tck.StoreFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the backend holds for a record once outcomes are encrypted and fingerprints keyed, read
 * with the backend's own client rather than through the store: neither the request's nor the
 * response's text, nor a step result's, nor the request's plain SHA-256 fingerprint, while a
 * replay on another store instance still returns the original answer; after a key rotation
 * old records still replay and new ones are written under the new key id. An adapter's test
 * extends this class and implements {@link #createFixture()} and {@link #rawRecord}, the read
 * of one record's bytes with the backend's client, in a few lines.
 *
 * <p>The first test is the control: with nothing protected, the same search must find the
 * response, the step result and the fingerprint in what {@link #rawRecord} returns. It fails
 * for a raw read that misses the outcome, journal or fingerprint (so the checks after it cannot
 * pass by looking at the wrong bytes), and it is what the checks after it report against an
 * engine that stores plaintext. Text is searched for as it is, in hex and in Base64 (every
 * alignment), so a backend that encodes bytes is searched as well as one that stores them raw.
 *
 * <p>Beyond the text: a record copied to another scope does not open (the encryption's associated
 * data binds the scope, not only the operation and key name); no AES-GCM nonce serves two rewrites of
 * a record (read from the envelope's header in the raw bytes after each journal checkpoint and the
 * completion); a final failure's code and detail, and the journal an atomic step saves itself,
 * are encrypted as a success and the engine's own journal are.
 */
@Timeout(120)
public abstract class EncryptionAtRestContract {
    private static final KeyVersion KEY_1 = secret("kit-outcomes-1", 0x31);
    private static final KeyVersion KEY_2 = secret("kit-outcomes-2", 0x32);
    private static final KeyVersion SECRET_1 = secret("kit-fingerprints-1", 0x41);
    private static final KeyVersion SECRET_2 = secret("kit-fingerprints-2", 0x42);

    /** The fixture for the current test. */
    protected StoreFixture fixture;
    private String scope;
    private final String responseText = "card-" + UUID.randomUUID();
    private final String requestText = "iban-" + UUID.randomUUID();
    private final String stepText = "reservation-" + UUID.randomUUID();
    private final AtomicInteger runs = new AtomicInteger();

    /**
     * Builds the fixture for one test; called before each test.
     *
     * @return a fresh fixture
     * @throws Exception if the backend cannot be reached
     */
    protected abstract StoreFixture createFixture() throws Exception;

    /**
     * Every byte the backend holds for {@code key}'s record, read with the backend's own client,
     * not through the store under test: a row's columns, a hash's fields and values, an item's
     * attributes, concatenated in any order (as the client returns them: raw or encoded).
     *
     * @param key the record's key
     * @return the record's bytes, empty if the backend holds none
     * @throws Exception if the backend cannot be read
     */
    protected abstract byte[] rawRecord(IdempotencyKey key) throws Exception;

    /**
     * The engine a test runs on, before protection; override to add settings your store needs.
     *
     * @param store the store this engine uses
     * @return a builder with the store, lease and TTL set
     */
    protected IdempotencyEngineBuilder engineBuilder(IdempotencyStore store) {
        return IdempotencyEngine.builder().store(store).lease(fixture.lease()).ttl(fixture.ttl());
    }

    /**
     * Turns protection on: encryption under {@code keys}, fingerprints keyed with {@code secrets}.
     * The kit's own tests override it to show the checks fail when nothing is protected.
     *
     * @param builder the engine's builder
     * @param keys the outcome keys
     * @param secrets the fingerprint secrets
     * @return the builder
     */
    protected IdempotencyEngineBuilder protect(IdempotencyEngineBuilder builder, KeyRing keys, KeyRing secrets) {
        return builder.encryptOutcomes(keys).keyedFingerprints(secrets);
    }

    @BeforeEach
    final void setUpAtRest() throws Exception {
        fixture = createFixture();
        scope = "at-rest-" + UUID.randomUUID();
    }

    @AfterEach
    final void tearDownAtRest() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static KeyVersion secret(String id, int fill) {
        byte[] bytes = new byte[32];
        Arrays.fill(bytes, (byte) fill);
        return KeyVersion.of(id, bytes);
    }

    private IdempotencyKey key(String name) {
        return IdempotencyKey.of(scope, "charge", name);
    }

    private String request() {
        return "{\"amount\":100,\"currency\":\"usd\",\"iban\":\"" + requestText + "\"}";
    }

    private Work<Map<String, Object>> charge() {
        return ctx -> {
            runs.incrementAndGet();
            return Map.of("card", responseText, "amount", 100);
        };
    }

    /** Work with one journaled step that then fails transiently once, so its record holds the journal. */
    private Work<String> saga(AtomicInteger stepRuns, AtomicInteger failures) {
        return ctx -> {
            runs.incrementAndGet();
            String reserved = ctx.step("reserve", String.class, () -> {
                stepRuns.incrementAndGet();
                return stepText;
            });
            if (failures.getAndDecrement() > 0) {
                throw new IllegalStateException("downstream timed out (kit)");
            }
            return "done " + reserved;
        };
    }

    private IdempotencyEngine plainEngine(IdempotencyStore store) {
        return engineBuilder(store).build();
    }

    private IdempotencyEngine protectedEngine(IdempotencyStore store, KeyRing keys, KeyRing secrets) {
        return protect(engineBuilder(store), keys, secrets).build();
    }

    private byte[] raw(IdempotencyKey key) throws Exception {
        byte[] bytes = rawRecord(key);
        assertThat(bytes).as("the raw read of %s", key).isNotNull().isNotEmpty();
        return bytes;
    }

    /** The plain SHA-256 fingerprint of this test's request, as an unprotected engine stores it. */
    private byte[] plainFingerprint() {
        IdempotencyKey probe = key("plain-fingerprint");
        plainEngine(fixture.store()).execute(probe, request(), Object.class, ctx -> "probe");
        return fixture.store().find(probe).orElseThrow().fingerprint();
    }

    @Test
    void withNothingProtectedTheRawReadShowsTheResponseTheStepResultAndTheFingerprint() throws Exception {
        IdempotencyEngine engine = plainEngine(fixture.store());
        engine.execute(key("clear"), request(), Object.class, charge());
        StoredRecord record = fixture.store().find(key("clear")).orElseThrow();
        byte[] clear = raw(key("clear"));
        assertThat(Plaintext.foundIn(clear, responseText)).as("the response's text in the raw record of an engine"
                + " that stores it in clear (is the outcome part of rawRecord?)").isTrue();
        assertThat(Plaintext.foundIn(clear, record.fingerprint())).as("the fingerprint in the raw record"
                + " (is the fingerprint part of rawRecord?)").isTrue();

        assertThatThrownBy(() -> engine.execute(key("clear-steps"), request(), String.class,
                saga(new AtomicInteger(), new AtomicInteger(1)))).hasMessageContaining("kit");
        assertThat(Plaintext.foundIn(raw(key("clear-steps")), stepText)).as("the step result in the raw record of"
                + " an engine that stores it in clear (is the journal part of rawRecord?)").isTrue();
    }

    @Test
    void aProtectedRecordHoldsNeitherTheRequestNorTheResponseAndReplaysTheOriginalAnswer() throws Exception {
        byte[] plainFingerprint = plainFingerprint();
        KeyRing keys = KeyRing.of(KEY_1);
        KeyRing secrets = KeyRing.of(SECRET_1);
        Object first = protectedEngine(fixture.store(), keys, secrets).execute(key("sealed"), request(), Object.class,
                charge()).value();

        byte[] sealed = raw(key("sealed"));
        assertNothingInClear(sealed, plainFingerprint);
        assertThat(Plaintext.foundIn(sealed, KEY_1.id())).as("the key id the outcome was encrypted under").isTrue();

        var replay = protectedEngine(fixture.otherStore(), keys, secrets).execute(key("sealed"), request(),
                Object.class, charge());
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(first);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aProtectedJournalHoldsNoStepResultAndTheRetryResumesFromIt() throws Exception {
        byte[] plainFingerprint = plainFingerprint();
        KeyRing keys = KeyRing.of(KEY_1);
        KeyRing secrets = KeyRing.of(SECRET_1);
        AtomicInteger stepRuns = new AtomicInteger();
        Work<String> saga = saga(stepRuns, new AtomicInteger(1));
        assertThatThrownBy(() -> protectedEngine(fixture.store(), keys, secrets).execute(key("journal"), request(),
                String.class, saga)).hasMessageContaining("kit");
        assertNothingInClear(raw(key("journal")), plainFingerprint);
        assertThat(Plaintext.foundIn(raw(key("journal")), stepText)).as("the step result in the raw record").isFalse();

        // The key was handed back with a lease of 1 ms: let it lapse, then retry on the other instance.
        fixture.advance(Duration.ofMillis(50).plus(fixture.slack()));
        IdempotencyEngine other = protectedEngine(fixture.otherStore(), keys, secrets);
        assertThat(other.execute(key("journal"), request(), String.class, saga).value()).isEqualTo("done " + stepText);
        assertThat(stepRuns).hasValue(1);
        assertThat(other.execute(key("journal"), request(), String.class, saga).replayed()).isTrue();
        assertNothingInClear(raw(key("journal")), plainFingerprint);
    }

    @Test
    void afterARotationOldRecordsReplayAndNewOnesUseTheNewKeyId() throws Exception {
        Object old = protectedEngine(fixture.store(), KeyRing.of(KEY_1), KeyRing.of(SECRET_1))
                .execute(key("old"), request(), Object.class, charge()).value();

        IdempotencyEngine rotated = protectedEngine(fixture.otherStore(), KeyRing.of(KEY_2, KEY_1),
                KeyRing.of(SECRET_2, SECRET_1));
        var replay = rotated.execute(key("old"), request(), Object.class, charge());
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(old);
        rotated.execute(key("new"), request(), Object.class, charge());
        byte[] newer = raw(key("new"));
        assertThat(Plaintext.foundIn(newer, KEY_2.id())).as("the new record names the new key id").isTrue();
        assertThat(Plaintext.foundIn(newer, KEY_1.id())).as("the new record names the old key id").isFalse();
        assertThat(Plaintext.foundIn(newer, SECRET_2.id())).as("the new record's fingerprint names the new secret")
                .isTrue();
        assertThat(Plaintext.foundIn(raw(key("old")), KEY_1.id())).isTrue();

        // With the old key dropped, its record cannot be read, and its work does not run again.
        IdempotencyEngine dropped = protectedEngine(fixture.store(), KeyRing.of(KEY_2), KeyRing.of(SECRET_2, SECRET_1));
        assertThatThrownBy(() -> dropped.execute(key("old"), request(), Object.class, charge()))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class,
                        e -> assertThat(e.keyId()).isEqualTo(KEY_1.id()));
        assertThat(runs).hasValue(2);
    }

    @Test
    void anOutcomeCopiedToAnotherRecordDoesNotDecrypt() throws Exception {
        KeyRing keys = KeyRing.of(KEY_1);
        KeyRing secrets = KeyRing.of(SECRET_1);
        IdempotencyEngine engine = protectedEngine(fixture.store(), keys, secrets);
        engine.execute(key("source"), request(), Object.class, charge());
        StoredRecord source = fixture.store().find(key("source")).orElseThrow();
        IdempotencyStore store = fixture.store();
        assertThat(store.claim(key("copy"), source.fingerprint(), 7, fixture.lease(), fixture.ttl()).claimed()).isTrue();
        assertThat(store.complete(key("copy"), 7, source.outcome(), fixture.ttl())).isTrue();

        assertThatThrownBy(() -> engine.execute(key("copy"), request(), Object.class, charge()))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class,
                        e -> assertThat(e.reason()).isEqualTo(OutcomeUnreadableException.Reason.TAMPERED));
        assertThat(runs).hasValue(1);
    }

    /**
     * The associated data binds the scope: tenant A's sealed outcome and journal, copied through
     * the store to the same operation and key under tenant B (with A's fingerprint, so the request
     * matches), do not open for B. Binding the operation and key name only would replay A's
     * secret to B.
     */
    @Test
    void aSealedRecordCopiedToAnotherScopeDoesNotOpen() throws Exception {
        IdempotencyEngine engine = protectedEngine(fixture.store(), KeyRing.of(KEY_1), KeyRing.of(SECRET_1));
        IdempotencyStore store = fixture.store();
        IdempotencyKey tenantA = IdempotencyKey.of(scope + "-tenant-a", "charge", "shared");
        IdempotencyKey tenantB = IdempotencyKey.of(scope + "-tenant-b", "charge", "shared");
        engine.execute(tenantA, request(), Object.class, charge());
        StoredRecord outcome = store.find(tenantA).orElseThrow();
        assertThat(store.claim(tenantB, outcome.fingerprint(), 7, fixture.lease(), fixture.ttl()).claimed()).isTrue();
        assertThat(store.complete(tenantB, 7, outcome.outcome(), fixture.ttl())).isTrue();
        assertThat(refused("tenant A's sealed outcome, copied to the same operation and key under tenant B (the"
                + " associated data must bind the scope)", () -> engine.execute(tenantB, request(), Object.class,
                charge()).value()))
                .isInstanceOfSatisfying(OutcomeUnreadableException.class,
                        e -> assertThat(e.reason()).isEqualTo(OutcomeUnreadableException.Reason.TAMPERED));
        assertThat(runs).hasValue(1);

        IdempotencyKey journalA = IdempotencyKey.of(scope + "-tenant-a", "charge", "shared-journal");
        IdempotencyKey journalB = IdempotencyKey.of(scope + "-tenant-b", "charge", "shared-journal");
        AtomicInteger stepRuns = new AtomicInteger();
        assertThatThrownBy(() -> engine.execute(journalA, request(), String.class,
                saga(stepRuns, new AtomicInteger(1)))).hasMessageContaining("kit");
        StoredRecord journal = store.find(journalA).orElseThrow();
        assertThat(journal.journal()).as("tenant A's journal").isNotNull();
        assertThat(store.claim(journalB, journal.fingerprint(), 8, fixture.lease(), fixture.ttl()).claimed()).isTrue();
        assertThat(store.checkpoint(journalB, 8, journal.journal())).isTrue();
        assertThat(store.release(journalB, 8)).isTrue();
        assertThat(refused("tenant A's sealed journal, copied to the same operation and key under tenant B (the"
                + " associated data must bind the scope)", () -> engine.execute(journalB, request(), String.class,
                saga(stepRuns, new AtomicInteger(0))).value()))
                .isInstanceOf(OutcomeUnreadableException.class);
        assertThat(stepRuns).as("A's step, resumed from for B").hasValue(1);
    }

    /** What {@code call} threw; an {@link AssertionError} naming {@code what} and the answer if it answered. */
    private static Throwable refused(String what, Callable<?> call) {
        Object answer;
        try {
            answer = call.call();
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError(what + " was not refused: it answered " + answer);
    }

    /**
     * No AES-GCM nonce is used twice under one data key: every rewrite of one record (each step's
     * journal checkpoint, then the outcome) and each record is sealed under a nonce of its own. A
     * nonce derived from the record would repeat with every rewrite, and GCM then leaks the XOR of
     * the two plaintexts and lets its authentication key be recovered.
     */
    @Test
    void everyRewriteOfARecordIsSealedUnderANonceOfItsOwn() throws Exception {
        IdempotencyEngine engine = protectedEngine(fixture.store(), KeyRing.of(KEY_1), KeyRing.of(SECRET_1));
        Map<String, String> uses = new HashMap<>();
        for (String name : List.of("rewritten-1", "rewritten-2")) {
            IdempotencyKey key = key(name);
            engine.execute(key, request(), String.class, ctx -> {
                for (String step : List.of("one", "two", "three", "four")) {
                    ctx.step(step, String.class, () -> {
                        if (!step.equals("one")) {
                            noted(uses, key, "the journal before step " + step);
                        }
                        return stepText + "-" + step;
                    });
                }
                return "done";
            });
            noted(uses, key, "the outcome");
        }
        assertThat(uses).as("the sealed parts found").hasSize(8);
    }

    /** Notes the key uses (data key and nonce) of the envelope {@code key}'s raw record holds now. */
    private void noted(Map<String, String> uses, IdempotencyKey key, String what) throws Exception {
        Set<String> found = new HashSet<>(SealedParts.keyUses(raw(key), KEY_1.id()));
        assertThat(found).as("envelopes under key id %s in the raw record of %s, holding %s (encrypted format 1)",
                KEY_1.id(), key.key(), what).hasSize(1);
        String use = found.iterator().next();
        String before = uses.put(use, key.key() + ", " + what);
        if (before != null) {
            throw new AssertionError("AES-GCM nonce and data key used twice: for " + before + " and for " + key.key()
                    + ", " + what + " (salt and nonce " + use + ")");
        }
    }

    /**
     * A final failure's code and detail are encrypted as the outcome of a success is: the raw record
     * holds neither (where an unprotected engine's shows both), and a replay on the other store
     * instance gives the original code and detail.
     */
    @Test
    void aFinalFailuresCodeAndDetailAreEncrypted() throws Exception {
        String code = "declined-" + UUID.randomUUID();
        String detail = "limit-" + UUID.randomUUID();
        FailureClassifier declined = e -> FailureDecision.finalFailure(code, detail);
        Work<Object> fails = ctx -> {
            runs.incrementAndGet();
            throw new IllegalStateException("declined (kit)");
        };
        IdempotencyEngine plain = engineBuilder(fixture.store()).failureClassifier(declined).build();
        assertThatThrownBy(() -> plain.execute(key("failure-clear"), request(), Object.class, fails))
                .isInstanceOf(FinalFailureException.class);
        byte[] clear = raw(key("failure-clear"));
        assertThat(Plaintext.foundIn(clear, detail)).as("the failure's detail in the raw record of an engine that"
                + " stores it in clear (is the outcome part of rawRecord?)").isTrue();

        KeyRing keys = KeyRing.of(KEY_1);
        KeyRing secrets = KeyRing.of(SECRET_1);
        assertThatThrownBy(() -> protect(engineBuilder(fixture.store()).failureClassifier(declined), keys, secrets)
                .build().execute(key("failure-sealed"), request(), Object.class, fails))
                .isInstanceOfSatisfying(FinalFailureException.class, e -> assertThat(e.code()).isEqualTo(code));
        byte[] sealed = raw(key("failure-sealed"));
        assertThat(Plaintext.foundIn(sealed, code)).as("the final failure's code in the raw record").isFalse();
        assertThat(Plaintext.foundIn(sealed, detail)).as("the final failure's detail in the raw record").isFalse();
        assertThat(Plaintext.foundIn(sealed, KEY_1.id())).as("the key id the failure was encrypted under").isTrue();
        assertThatThrownBy(() -> protect(engineBuilder(fixture.otherStore()).failureClassifier(declined), keys,
                secrets).build().execute(key("failure-sealed"), request(), Object.class, fails))
                .isInstanceOfSatisfying(FinalFailureException.class, e -> {
                    assertThat(e.code()).isEqualTo(code);
                    assertThat(e.detail()).isEqualTo(detail);
                });
        assertThat(runs).hasValue(2);
    }

    /**
     * The journal an atomic step saves itself (in its own transaction, with the store's checkpoint)
     * is encrypted as the engine's own checkpoints are: the raw record holds no step result, and a
     * retry on the other store instance resumes from it without running the step again.
     */
    @Test
    void anAtomicStepsJournalIsEncrypted() throws Exception {
        KeyRing keys = KeyRing.of(KEY_1);
        KeyRing secrets = KeyRing.of(SECRET_1);
        AtomicInteger stepRuns = new AtomicInteger();
        Work<String> atomic = atomicSaga(stepRuns, new AtomicInteger(1));
        assertThatThrownBy(() -> protectedEngine(fixture.store(), keys, secrets).execute(key("atomic"), request(),
                String.class, atomic)).hasMessageContaining("kit");
        byte[] held = raw(key("atomic"));
        assertThat(Plaintext.foundIn(held, stepText)).as("the atomic step's result in the raw record (the journal"
                + " it saved itself)").isFalse();
        assertThat(Plaintext.foundIn(held, KEY_1.id())).as("the key id the journal was encrypted under").isTrue();

        fixture.advance(Duration.ofMillis(50).plus(fixture.slack()));
        IdempotencyEngine other = protectedEngine(fixture.otherStore(), keys, secrets);
        assertThat(other.execute(key("atomic"), request(), String.class, atomic).value())
                .isEqualTo("done " + stepText);
        assertThat(stepRuns).as("runs of the atomic step").hasValue(1);
    }

    /** Work whose one step saves its own journal entry through the store, then fails transiently once. */
    private Work<String> atomicSaga(AtomicInteger stepRuns, AtomicInteger failures) {
        return ctx -> {
            runs.incrementAndGet();
            String reserved = ctx.atomicStep("reserve", String.class, cp -> {
                stepRuns.incrementAndGet();
                byte[] journal = cp.journalWith(stepText);
                if (!fixture.store().checkpoint(ctx.key(), cp.fencingToken(), journal)) {
                    throw new LeaseLostException(ctx.key(), cp.fencingToken());
                }
                return stepText;
            });
            if (failures.getAndDecrement() > 0) {
                throw new IllegalStateException("downstream timed out (kit)");
            }
            return "done " + reserved;
        };
    }

    private void assertNothingInClear(byte[] raw, byte[] plainFingerprint) {
        assertThat(Plaintext.foundIn(raw, responseText)).as("the response's text in the raw record").isFalse();
        assertThat(Plaintext.foundIn(raw, requestText)).as("the request's text in the raw record").isFalse();
        assertThat(Plaintext.foundIn(raw, plainFingerprint)).as("the request's plain SHA-256 fingerprint in the raw"
                + " record").isFalse();
    }

    /** Searches bytes for a needle as it is, in hex and in Base64. */
    static final class Plaintext {
        private Plaintext() {
        }

        static boolean foundIn(byte[] haystack, String needle) {
            return foundIn(haystack, needle.getBytes(StandardCharsets.UTF_8));
        }

        static boolean foundIn(byte[] haystack, byte[] needle) {
            for (byte[] form : forms(needle)) {
                if (indexOf(haystack, form) >= 0) {
                    return true;
                }
            }
            return false;
        }

        /** The needle raw, in hex (both cases), and the part of its Base64 that does not depend on alignment. */
        private static List<byte[]> forms(byte[] needle) {
            List<byte[]> forms = new java.util.ArrayList<>();
            forms.add(needle);
            String hex = HexFormat.of().formatHex(needle);
            forms.add(hex.getBytes(StandardCharsets.US_ASCII));
            forms.add(hex.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII));
            for (int shift = 0; shift < 3; shift++) {
                byte[] shifted = new byte[shift + needle.length];
                System.arraycopy(needle, 0, shifted, shift, needle.length);
                for (Base64.Encoder encoder : List.of(Base64.getEncoder(), Base64.getUrlEncoder())) {
                    String b64 = encoder.withoutPadding().encodeToString(shifted);
                    // Only whole 3-byte groups of the needle give the same characters wherever it stands.
                    int from = shift == 0 ? 0 : 4;
                    int to = (shifted.length / 3) * 4;
                    if (to - from >= 8) {
                        forms.add(b64.substring(from, to).getBytes(StandardCharsets.US_ASCII));
                    }
                }
            }
            return forms;
        }

        private static int indexOf(byte[] haystack, byte[] needle) {
            outer:
            for (int i = 0; i + needle.length <= haystack.length; i++) {
                for (int j = 0; j < needle.length; j++) {
                    if (haystack[i + j] != needle[j]) {
                        continue outer;
                    }
                }
                return i;
            }
            return -1;
        }
    }
}
