package dev.idem.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.examples.SagaDemo.Audit;
import dev.idem.examples.SagaDemo.Mode;
import dev.idem.examples.SagaDemo.Settings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The saga demo's audit under the crash tester: what steps, downstream keys and at-most-once steps each buy. */
@Timeout(120)
class SagaDemoTest {
    private static String output;

    private static Audit run(Mode mode, boolean trace) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Audit audit = SagaDemo.run(new Settings(mode, trace), new PrintStream(out, true, StandardCharsets.UTF_8));
        output = out.toString(StandardCharsets.UTF_8);
        assertThat(output).contains("=== audit ===");
        return audit;
    }

    @Test
    void withStepsAndDownstreamKeysEveryEffectHappensOnceInEveryCrashSchedule() {
        Audit a = run(Mode.STEPS_AND_KEYS, false);

        assertThat(a.passed()).as(a.toString()).isTrue();
        // The fault-free run, 3 steps of 4 boundaries, and 5 faults at each of 5 store calls
        // (the claim, three journal writes, the completion).
        assertThat(a.schedules()).isEqualTo(1 + 3 * 4 + 5 * 5);
        assertThat(a.reconciled()).isZero();
        // Interrupted steps ran again; their downstream keys absorbed the repeats.
        assertThat(a.downstreamCalls()).isGreaterThan(3L * a.schedules());
    }

    @Test
    void withAnAtMostOnceChargeAtABankWithoutKeysEveryEffectStillHappensOnce() {
        Audit a = run(Mode.AT_MOST_ONCE, true);

        assertThat(a.passed()).as(a.toString()).isTrue();
        // One more journal write: the charge's start marker.
        assertThat(a.schedules()).isEqualTo(1 + 3 * 4 + 5 * 6);
        assertThat(a.reconciled()).isPositive();
        assertThat(output).contains("reconciled [charge (started by attempt 1)]");
    }

    @Test
    void stepsWithoutDownstreamKeysRepeatTheInterruptedSteps() {
        Audit a = run(Mode.STEPS, false);

        assertThat(a.passed()).isFalse();
        assertThat(a.missing()).isZero();
        assertThat(a.disagreements()).isZero();
        assertThat(a.duplicates()).isPositive();
    }

    @Test
    void withoutStepsARetryRepeatsEveryFinishedCall() {
        Audit plain = run(Mode.PLAIN, false);

        assertThat(plain.passed()).isFalse();
        assertThat(plain.missing()).isZero();
        // No step boundaries: the fault-free run and 5 faults at each of the claim and the completion.
        assertThat(plain.schedules()).isEqualTo(1 + 5 * 2);
        assertThat(plain.duplicates()).isPositive();
        assertThat(plain.duplicates() % 3).as("a retry repeats all three calls, never some").isZero();
    }

    @Test
    void everyRunPrintsTheSame() {
        run(Mode.AT_MOST_ONCE, true);
        String first = output.replaceAll("crash-test-[0-9a-f-]+", "");
        run(Mode.AT_MOST_ONCE, true);
        assertThat(output.replaceAll("crash-test-[0-9a-f-]+", "")).isEqualTo(first);
    }

    @Test
    void optionsAreReadOverTheDefaults() {
        assertThat(Settings.parse()).isEqualTo(Settings.defaults());
        assertThat(Settings.parse("--mode", "steps", "--trace")).isEqualTo(new Settings(Mode.STEPS, true));
        assertThat(Settings.parse("--mode", "at-most-once").mode()).isEqualTo(Mode.AT_MOST_ONCE);
        assertThat(Settings.parse("--mode", "steps-and-keys").mode()).isEqualTo(Mode.STEPS_AND_KEYS);
    }

    @Test
    void badOptionsAreRefusedByName() {
        assertThatThrownBy(() -> Settings.parse("--mode", "fast")).hasMessageContaining("--mode must be");
        assertThatThrownBy(() -> Settings.parse("--mode")).hasMessageContaining("missing value");
        assertThatThrownBy(() -> Settings.parse("--orders", "10")).hasMessage("unknown option: --orders");
        assertThatThrownBy(() -> Settings.parse("--bogus", "--trace")).hasMessage("unknown option: --bogus");
    }
}
