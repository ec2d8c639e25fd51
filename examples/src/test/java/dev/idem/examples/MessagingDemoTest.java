package dev.idem.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The messaging demo's audit passes with the inbox and fails without it, on a small run. */
class MessagingDemoTest {

    @Test
    void withTheInboxEveryChargeIsBookedOnceThroughRelayAndConsumerKills() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        MessagingDemo.Result r = MessagingDemo.run(120, 7, true, new PrintStream(out, true, StandardCharsets.UTF_8));

        assertThat(r.passed()).as(out.toString(StandardCharsets.UTF_8)).isTrue();
        assertThat(r.entries()).isEqualTo(120);
        assertThat(r.relayKills() + r.consumerKills()).isPositive();
        assertThat(r.published() + r.redelivered()).isGreaterThan(120);
    }

    @Test
    void withoutTheInboxTheKillsShowUpAsDuplicateBookings() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        MessagingDemo.Result r = MessagingDemo.run(120, 7, false, new PrintStream(out, true, StandardCharsets.UTF_8));

        assertThat(r.missing()).isZero();
        assertThat(r.duplicates()).as(out.toString(StandardCharsets.UTF_8)).isPositive();
    }

    @Test
    void optionsNameAnUnknownOptionAndAMissingValue() {
        assertThat(MessagingDemo.Options.parse()).isEqualTo(new MessagingDemo.Options(300, 42, true));
        assertThat(MessagingDemo.Options.parse("--charges", "20", "--no-inbox", "--seed", "-3"))
                .isEqualTo(new MessagingDemo.Options(20, -3, false));
        assertThatThrownBy(() -> MessagingDemo.Options.parse("--bogus")).hasMessage("unknown option: --bogus");
        assertThatThrownBy(() -> MessagingDemo.Options.parse("--charges")).hasMessage("--charges needs a value");
        assertThatThrownBy(() -> MessagingDemo.Options.parse("--seed", "x")).hasMessageContaining("--seed needs a number");
        assertThatThrownBy(() -> MessagingDemo.Options.parse("--charges", "0")).hasMessageContaining("--charges");
    }
}
