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

/** The saga demo's audit on small runs: what steps and downstream keys each buy, and its options. */
@Timeout(120)
class SagaDemoTest {
    private static final int ORDERS = 80;

    private static Audit run(Mode mode, int workers, double crashRate) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Audit audit = SagaDemo.run(new Settings(ORDERS, 7, workers, crashRate, 3, mode, false),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("=== audit ===");
        return audit;
    }

    @Test
    void withStepsAndDownstreamKeysEveryEffectHappensOnceThroughDeathsInEveryPhase() throws Exception {
        Audit a = run(Mode.STEPS_AND_KEYS, 4, 0.6);

        assertThat(a.passed()).as(a.toString()).isTrue();
        assertThat(a.deathsBefore()).isPositive();
        assertThat(a.deathsInside()).isPositive();
        assertThat(a.deathsAfter()).isPositive();
        assertThat(a.takeovers()).isEqualTo(a.deaths());
        assertThat(a.effects()).isEqualTo(3L * ORDERS);
        // Only a step interrupted mid-way runs again (and its downstream key absorbs the repeat).
        assertThat(a.stepsRun() - 3L * ORDERS).isEqualTo(a.deathsInside());
        assertThat(a.downstreamCalls()).isEqualTo(a.stepsRun());
        assertThat(a.stepsReplayed()).isPositive();
    }

    @Test
    void stepsWithoutDownstreamKeysRepeatExactlyTheInterruptedSteps() throws Exception {
        Audit a = run(Mode.STEPS, 4, 0.6);

        assertThat(a.passed()).isFalse();
        assertThat(a.missing()).isZero();
        assertThat(a.deathsInside()).isPositive();
        assertThat(a.duplicates()).isEqualTo(a.deathsInside());
    }

    @Test
    void withoutStepsATakeoverRepeatsEveryFinishedCall() throws Exception {
        Audit a = run(Mode.PLAIN, 4, 0.6);

        assertThat(a.passed()).isFalse();
        assertThat(a.missing()).isZero();
        assertThat(a.stepsReplayed()).isZero();
        // A death after step k or inside it repeats at least that step; deaths before later steps repeat earlier ones too.
        assertThat(a.duplicates()).isGreaterThanOrEqualTo(a.deathsInside() + a.deathsAfter());
        assertThat(a.duplicates()).isGreaterThan(a.deathsInside());
    }

    @Test
    void theSameSeedGivesTheSameAuditHoweverManyWorkersRun() throws Exception {
        assertThat(run(Mode.STEPS_AND_KEYS, 1, 0.6)).isEqualTo(run(Mode.STEPS_AND_KEYS, 4, 0.6));
        assertThat(run(Mode.STEPS, 1, 0.6)).isEqualTo(run(Mode.STEPS, 3, 0.6));
    }

    @Test
    void withoutCrashesEveryStepRunsOnce() throws Exception {
        Audit a = run(Mode.STEPS_AND_KEYS, 2, 0);

        assertThat(a.passed()).isTrue();
        assertThat(a.deaths()).isZero();
        assertThat(a.stepsRun()).isEqualTo(3L * ORDERS);
        assertThat(a.stepsReplayed()).isZero();
    }

    @Test
    void optionsAreReadOverTheDefaults() {
        assertThat(Settings.parse()).isEqualTo(Settings.defaults());
        assertThat(Settings.parse("--orders", "10", "--seed", "3", "--workers", "2", "--crash-rate", "0.25",
                "--max-crashes", "1", "--mode", "steps", "--trace"))
                .isEqualTo(new Settings(10, 3, 2, 0.25, 1, Mode.STEPS, true));
        assertThat(Settings.parse("--mode", "steps-and-keys").mode()).isEqualTo(Mode.STEPS_AND_KEYS);
    }

    @Test
    void badOptionsAreRefusedByName() {
        assertThatThrownBy(() -> Settings.parse("--orders", "0")).hasMessageContaining("--orders");
        assertThatThrownBy(() -> Settings.parse("--workers", "0")).hasMessageContaining("--workers");
        assertThatThrownBy(() -> Settings.parse("--crash-rate", "1")).hasMessageContaining("--crash-rate");
        assertThatThrownBy(() -> Settings.parse("--crash-rate", "NaN")).hasMessageContaining("--crash-rate");
        assertThatThrownBy(() -> Settings.parse("--max-crashes", "-1")).hasMessageContaining("--max-crashes");
        assertThatThrownBy(() -> Settings.parse("--seed", "x")).hasMessageContaining("--seed needs a number");
        assertThatThrownBy(() -> Settings.parse("--mode", "fast")).hasMessageContaining("--mode must be");
        assertThatThrownBy(() -> Settings.parse("--orders")).hasMessageContaining("missing value");
        assertThatThrownBy(() -> Settings.parse("--color", "red")).hasMessageContaining("unknown option: --color");
        assertThatThrownBy(() -> Settings.parse("--bogus")).hasMessage("unknown option: --bogus");
        assertThatThrownBy(() -> Settings.parse("--bogus", "--trace")).hasMessage("unknown option: --bogus");
    }
}
