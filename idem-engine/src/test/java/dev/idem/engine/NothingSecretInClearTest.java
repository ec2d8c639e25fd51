package dev.idem.engine;

import static dev.idem.engine.ProtectionFixture.contains;
import static dev.idem.engine.ProtectionFixture.secretKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.protection.KeyProvider;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import java.text.MessageFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the engine writes where a caller does not look: a key provider's failure leaves no text of
 * its own in the store (its message may name the key, a KMS ARN, and the marker that stands for the
 * outcome is stored in clear when sealing fails), and the engine's log lines name a key by its
 * {@link IdempotencyKey#digest()}, never by its scope (a principal) or client key.
 */
class NothingSecretInClearTest {
    private static final KeyVersion K1 = secretKey("k1", 1);
    private static final String ARN = "arn:aws:kms:eu-west-1:123456789012:key/5f1c9a2e";
    private static final String PRINCIPAL = "alice@example.com";
    private static final String CLIENT_KEY = "K1-client-token-7731";

    private final ProtectionFixture fixture = new ProtectionFixture();
    private final Capture logs = new Capture();

    @AfterEach
    void close() {
        logs.close();
    }

    private static IdempotencyKey key() {
        return IdempotencyKey.of(PRINCIPAL, "refund", CLIENT_KEY);
    }

    /** A key provider that gives its key once (the fingerprint's, the claim's), then fails naming it. */
    private static KeyProvider failingAfterFirstUse() {
        AtomicInteger calls = new AtomicInteger();
        return new KeyProvider() {
            @Override
            public KeyVersion current() {
                if (calls.incrementAndGet() > 1) {
                    throw new IllegalStateException("KMS denied " + ARN);
                }
                return K1;
            }

            @Override
            public KeyVersion find(String id) {
                return null;
            }
        };
    }

    @Test
    void aKeyProvidersMessageIsNeitherStoredNorLogged() {
        IdempotencyEngine engine = fixture.engine(b -> b.encryptOutcomes(failingAfterFirstUse()));
        assertThatThrownBy(() -> engine.call(key(), "{}", String.class, ctx -> "refunded"))
                .isInstanceOfSatisfying(OutcomeNotStoredException.class, e ->
                        assertThat(e.reason()).contains("could not be encrypted")
                                .contains(IllegalStateException.class.getName()).doesNotContain(ARN));
        byte[] stored = fixture.store.find(key()).orElseThrow().outcome();
        assertThat(contains(stored, ARN)).as("the marker as stored").isFalse();
        assertThat(contains(stored, "123456789012")).as("the marker as stored").isFalse();
        assertThat(logs.lines()).isNotEmpty().noneMatch(line -> line.contains("123456789012"));
    }

    @Test
    void theEnginesLogLinesNameAKeyByItsDigest() {
        // A warning on the write path (the marker stored in the outcome's place) ...
        IdempotencyEngine failing = fixture.engine(b -> b.encryptOutcomes(failingAfterFirstUse()));
        assertThatThrownBy(() -> failing.call(key(), "{}", String.class, ctx -> "refunded"))
                .isInstanceOf(OutcomeNotStoredException.class);
        // ... on the read path (a stored outcome whose key is no longer provided) ...
        IdempotencyKey other = IdempotencyKey.of(PRINCIPAL, "refund", CLIENT_KEY + "-2");
        fixture.engine(b -> b.encryptOutcomes(KeyRing.of(K1))).call(other, "{}", String.class, ctx -> "refunded");
        assertThatThrownBy(() -> fixture.engine(b -> b.encryptOutcomes(KeyRing.of(secretKey("k2", 2))))
                .call(other, "{}", String.class, ctx -> "again")).isInstanceOf(OutcomeUnreadableException.class);
        // ... and from a step whose result cannot be journaled.
        IdempotencyKey steps = IdempotencyKey.of(PRINCIPAL, "refund", CLIENT_KEY + "-3");
        assertThatThrownBy(() -> fixture.engine(b -> b.maxOutcomeBytes(2048)).call(steps, "{}", String.class, ctx ->
                ctx.step("refund", String.class, () -> "x".repeat(4000)))).isInstanceOf(StepNotJournaledException.class);

        List<String> lines = logs.lines();
        assertThat(lines).hasSizeGreaterThanOrEqualTo(3);
        assertThat(lines).noneMatch(line -> line.contains(PRINCIPAL)).noneMatch(line -> line.contains(CLIENT_KEY));
        assertThat(lines).anyMatch(line -> line.contains(key().digest()));
        assertThat(lines).anyMatch(line -> line.contains(other.digest()));
        assertThat(lines).anyMatch(line -> line.contains(steps.digest()));
    }

    /** The engine's log records (System.Logger goes to java.util.logging here), formatted as a handler would. */
    static final class Capture extends Handler {
        private static final Logger ENGINE = Logger.getLogger(IdempotencyEngine.class.getName());
        private final List<LogRecord> records = new CopyOnWriteArrayList<>();
        private final Level before = ENGINE.getLevel();

        Capture() {
            setLevel(Level.ALL);
            ENGINE.setLevel(Level.ALL);
            ENGINE.addHandler(this);
        }

        List<String> lines() {
            return records.stream().filter(r -> r.getLevel().intValue() >= Level.INFO.intValue())
                    .map(r -> r.getParameters() == null ? r.getMessage()
                            : MessageFormat.format(r.getMessage(), r.getParameters()))
                    .toList();
        }

        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            ENGINE.removeHandler(this);
            ENGINE.setLevel(before);
        }
    }
}
