package dev.idem.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DemoSettingsTest {

    @Test
    void parsesBothOptionForms() {
        DemoSettings s = DemoSettings.parse("--charges=10", "--threads", "2", "--seed", "-5", "--timeout-ms=500",
                "--db-url", "jdbc:h2:./target/x", "--no-idempotency", "--drop-rate", "0.5");

        assertThat(s.charges()).isEqualTo(10);
        assertThat(s.threads()).isEqualTo(2);
        assertThat(s.seed()).isEqualTo(-5);
        assertThat(s.requestTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(s.dbUrl()).isEqualTo("jdbc:h2:./target/x");
        assertThat(s.idempotency()).isFalse();
        assertThat(s.dropRate()).isEqualTo(0.5);
    }

    @Test
    void defaultsAreTheOneCommandRun() {
        DemoSettings s = DemoSettings.parse();

        assertThat(s.charges()).isEqualTo(200);
        assertThat(s.dbUrl()).isNull();
        assertThat(s.idempotency()).isTrue();
    }

    @Test
    void rejectsBadInputNamingIt() {
        assertThatThrownBy(() -> DemoSettings.parse("--charges", "zero")).hasMessageContaining("--charges")
                .hasMessageContaining("zero");
        assertThatThrownBy(() -> DemoSettings.parse("--charges", "0")).hasMessageContaining("charges");
        assertThatThrownBy(() -> DemoSettings.parse("--frobnicate", "1")).hasMessageContaining("--frobnicate");
        assertThatThrownBy(() -> DemoSettings.parse("--threads")).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> DemoSettings.parse("--bogus")).hasMessageStartingWith("unknown option --bogus");
        assertThatThrownBy(() -> DemoSettings.parse("--bogus", "--charges", "3"))
                .hasMessageStartingWith("unknown option --bogus");
        assertThatThrownBy(() -> DemoSettings.parse("--db-url", "jdbc:mysql://x/y"))
                .hasMessageContaining("jdbc:mysql://x/y");
        assertThatThrownBy(() -> DemoSettings.parse("--drop-rate", "0.6", "--delay-rate", "0.6"))
                .hasMessageContaining("add up");
        assertThatThrownBy(() -> DemoSettings.parse("--drop-rate", "NaN")).hasMessageContaining("NaN");
    }
}
