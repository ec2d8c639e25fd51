package dev.idem.engine;

import static dev.idem.engine.ProtectionFixture.contains;
import static dev.idem.engine.ProtectionFixture.secretKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.OutcomeUnreadableException.Reason;
import dev.idem.engine.internal.Fingerprinter;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.testsupport.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Keyed fingerprints: HMAC-SHA-256 under a versioned secret. The record names the secret's id,
 * so turning them on or rotating the secret keeps a retry of a key claimed before the same
 * request (a 409 while it runs, a takeover with its journal after a crash, a replay once
 * completed), and another request still a 422; a secret no longer provided is a typed error.
 */
class KeyedFingerprintsTest {
    private static final KeyVersion F1 = secretKey("f1", 0x11);
    private static final KeyVersion F2 = secretKey("f2", 0x22);
    private static final String REQUEST = "{\"amount\":100,\"currency\":\"usd\"}";
    private static final String OTHER = "{\"amount\":200,\"currency\":\"usd\"}";

    private final ProtectionFixture fixture = new ProtectionFixture();
    private final MutableClock clock = fixture.clock;
    private final FaultyStore store = fixture.store;
    private final AtomicInteger runs = new AtomicInteger();

    private IdempotencyEngine engine(UnaryOperator<IdempotencyEngineBuilder> extra) {
        return fixture.engine(extra);
    }

    private IdempotencyEngine plain() {
        return engine(b -> b);
    }

    private IdempotencyEngine keyed(KeyRing secrets) {
        return engine(b -> b.keyedFingerprints(secrets));
    }

    private static IdempotencyKey key(String k) {
        return IdempotencyKey.of("merchant-1", "charge", k);
    }

    private final Work<String> work = ctx -> "ran " + runs.incrementAndGet();

    private StoredRecord record(String k) {
        return store.find(key(k)).orElseThrow();
    }

    @Test
    void aKeyedFingerprintNamesItsSecretAndDiffersFromThePlainDigest() {
        keyed(KeyRing.of(F1)).call(key("k"), REQUEST, String.class, work);
        plain().call(key("p"), REQUEST, String.class, work);
        keyed(KeyRing.of(secretKey("f1", 0x12))).call(key("other-secret"), REQUEST, String.class, work);

        byte[] keyedFp = record("k").fingerprint();
        byte[] plainFp = record("p").fingerprint();
        assertThat(Fingerprinter.keyedId(keyedFp)).isEqualTo("f1");
        assertThat(plainFp).hasSize(32);
        assertThat(contains(keyedFp, plainFp)).isFalse();
        assertThat(record("other-secret").fingerprint()).isNotEqualTo(keyedFp);
        assertThat(contains(keyedFp, "usd")).isFalse();
    }

    @Test
    void aCompletedRecordReplaysAcrossTurningKeyedFingerprintsOnAndAnotherRequestIsStillAReuse() {
        String first = plain().call(key("c"), REQUEST, String.class, work);
        IdempotencyEngine keyed = keyed(KeyRing.of(F1));
        Result<String> replay = keyed.execute(key("c"), REQUEST, String.class, work);
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(first);
        assertThatThrownBy(() -> keyed.call(key("c"), OTHER, String.class, work)).isInstanceOf(KeyReusedException.class);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aRetryWhileTheFirstCallRunsIsInProgressNotAReuse() {
        IdempotencyEngine keyed = keyed(KeyRing.of(F2, F1));
        // The first call, under the older secret, still runs when the retry arrives at the rotated engine.
        String first = keyed(KeyRing.of(F1)).call(key("r"), REQUEST, String.class, ctx -> {
            assertThatThrownBy(() -> keyed.call(key("r"), REQUEST, String.class, work))
                    .isInstanceOf(RequestInProgressException.class);
            assertThatThrownBy(() -> keyed.call(key("r"), OTHER, String.class, work))
                    .isInstanceOf(KeyReusedException.class);
            return "first";
        });
        assertThat(keyed.call(key("r"), REQUEST, String.class, work)).isEqualTo(first);
        assertThat(runs).hasValue(0);
    }

    @Test
    void aTakeOverAfterTurningKeyedFingerprintsOnResumesFromTheJournal() {
        AtomicInteger reserved = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger(1);
        Work<String> saga = ctx -> {
            String r = ctx.step("reserve", String.class, () -> "reservation " + reserved.incrementAndGet());
            if (failures.getAndDecrement() > 0) {
                throw new IllegalStateException("provider timed out");
            }
            return "done with " + r;
        };
        assertThatThrownBy(() -> plain().call(key("j"), REQUEST, String.class, saga)).hasMessage("provider timed out");
        clock.advance(Duration.ofSeconds(1));

        IdempotencyEngine keyed = keyed(KeyRing.of(F1));
        assertThat(keyed.call(key("j"), REQUEST, String.class, saga)).isEqualTo("done with reservation 1");
        assertThat(reserved).hasValue(1);
        // The record keeps the fingerprint it was claimed with, and replays under it.
        assertThat(record("j").fingerprint()).hasSize(32);
        assertThat(keyed.execute(key("j"), REQUEST, String.class, saga).replayed()).isTrue();
    }

    @Test
    void aRotatedSecretStillMatchesWhileTheOldOneIsProvided() {
        String first = keyed(KeyRing.of(F1)).call(key("rot"), REQUEST, String.class, work);
        assertThat(keyed(KeyRing.of(F2, F1)).call(key("rot"), REQUEST, String.class, work)).isEqualTo(first);
        keyed(KeyRing.of(F2, F1)).call(key("rot-new"), REQUEST, String.class, work);
        assertThat(Fingerprinter.keyedId(record("rot-new").fingerprint())).isEqualTo("f2");
        assertThat(runs).hasValue(2);
    }

    @Test
    void aSecretNoLongerProvidedIsATypedErrorAndNothingRuns() {
        keyed(KeyRing.of(F1)).call(key("gone"), REQUEST, String.class, work);
        for (IdempotencyEngine engine : new IdempotencyEngine[] {keyed(KeyRing.of(F2)), plain()}) {
            assertThatThrownBy(() -> engine.call(key("gone"), REQUEST, String.class, work))
                    .isInstanceOfSatisfying(OutcomeUnreadableException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.KEY_MISSING);
                        assertThat(e.keyId()).isEqualTo("f1");
                        assertThat(e).hasMessageContaining("fingerprint");
                    });
        }
        assertThat(runs).hasValue(1);
        assertThat(record("gone").state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    void theNearCacheMatchesARecordInTheOlderVersionWithoutAStoreCall() {
        String first = keyed(KeyRing.of(F1)).call(key("nc"), REQUEST, String.class, work);
        IdempotencyEngine rotated = engine(b -> b.keyedFingerprints(KeyRing.of(F2, F1)).nearCache(10));
        assertThat(rotated.call(key("nc"), REQUEST, String.class, work)).isEqualTo(first);
        int claims = store.claims.get();
        assertThat(rotated.execute(key("nc"), REQUEST, String.class, work).replayed()).isTrue();
        assertThatThrownBy(() -> rotated.call(key("nc"), OTHER, String.class, work))
                .isInstanceOf(KeyReusedException.class);
        assertThat(store.claims).hasValue(claims);
        assertThat(runs).hasValue(1);
    }

    @Test
    void rawByteRequestsAreKeyedToo() {
        byte[] digest = "sha-256 of an HTTP request".getBytes(StandardCharsets.UTF_8);
        IdempotencyEngine keyed = keyed(KeyRing.of(F1));
        keyed.call(key("bytes"), digest, String.class, work);
        assertThat(Fingerprinter.keyedId(record("bytes").fingerprint())).isEqualTo("f1");
        assertThat(keyed.execute(key("bytes"), digest, String.class, work).replayed()).isTrue();
    }
}
