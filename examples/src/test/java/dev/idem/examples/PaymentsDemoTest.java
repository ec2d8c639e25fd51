package dev.idem.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A small version of the one-command scenario, on in-memory H2, with the audit asserted. */
class PaymentsDemoTest {

    private static Audit run(DemoSettings settings, ByteArrayOutputStream log) throws Exception {
        return PaymentsDemo.run(settings, new PrintStream(log, true, StandardCharsets.UTF_8));
    }

    @Test
    void everyPaymentTakesEffectExactlyOnceThroughAHostileNetwork() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Audit audit = run(DemoSettings.builder().charges(48).threads(4).seed(7).refundEvery(3)
                .dropRate(0.2).duplicateRate(0.15).build(), log);

        assertThat(audit.duplicateCharges()).isZero();
        assertThat(audit.duplicateRefunds()).isZero();
        assertThat(audit.missingCharges()).isZero();
        assertThat(audit.missingRefunds()).isZero();
        assertThat(audit.mismatchedIds()).isZero();
        assertThat(audit.passed()).isTrue();
        assertThat(audit.chargesInLedger()).isEqualTo(48);
        assertThat(audit.refundsInLedger()).isEqualTo(16);
        assertThat(audit.handlerExecutions()).isEqualTo(48 + 16);
        // The network really was hostile: work was done whose answer never arrived, and retries replayed it.
        assertThat(audit.responsesLost()).isPositive();
        assertThat(audit.duplicatesSent()).isPositive();
        assertThat(audit.replaysServed()).isPositive();
        assertThat(audit.clientAttempts()).isGreaterThan(48 + 16);
        assertThat(log.toString(StandardCharsets.UTF_8))
                .contains("intents done")
                .contains("=== audit ===")
                .contains("RESULT: PASS");
    }

    @Test
    void withoutIdempotencyTheSameScenarioChargesTwice() throws Exception {
        Audit audit = run(DemoSettings.builder().charges(48).threads(4).seed(7).refundEvery(0)
                .dropRate(0.3).idempotency(false).build(), new ByteArrayOutputStream());

        assertThat(audit.duplicateCharges()).isPositive();
        assertThat(audit.chargesInLedger()).isGreaterThan(48);
        assertThat(audit.passed()).isFalse();
    }
}
