package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The main README's hello, run as a program: the retry replays the first charge. */
@Timeout(60)
class HelloTest {
    @Test
    void theRetryGetsTheFirstCallsChargeAndTheWorkRanOnce() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream before = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            Hello.main(new String[0]);
        } finally {
            System.setOut(before);
        }
        assertThat(out.toString(StandardCharsets.UTF_8))
                .matches("true: Charge\\[id=ch_[0-9a-f-]{36}, amountCents=1000\\]\\R");
    }
}
