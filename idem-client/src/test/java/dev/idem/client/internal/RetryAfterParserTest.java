package dev.idem.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterParserTest {

    private static final Instant NOW = Instant.parse("1994-11-06T08:49:00Z");

    @Test
    void parsesDeltaSeconds() {
        assertThat(RetryAfterParser.parse("120", NOW)).contains(Duration.ofSeconds(120));
        assertThat(RetryAfterParser.parse("0", NOW)).contains(Duration.ZERO);
        assertThat(RetryAfterParser.parse(" 7 ", NOW)).contains(Duration.ofSeconds(7));
        assertThat(RetryAfterParser.parse("0005", NOW)).contains(Duration.ofSeconds(5));
    }

    @Test
    void clampsHugeDeltaSecondsInsteadOfOverflowing() {
        Duration max = Duration.ofSeconds(RetryAfterParser.MAX_SECONDS);
        assertThat(RetryAfterParser.parse("99999999999999999999999", NOW)).contains(max);
        assertThat(RetryAfterParser.parse(String.valueOf(RetryAfterParser.MAX_SECONDS + 1), NOW))
                .contains(max);
    }

    @Test
    void parsesImfFixdateRelativeToNow() {
        assertThat(RetryAfterParser.parse("Sun, 06 Nov 1994 08:49:37 GMT", NOW))
                .contains(Duration.ofSeconds(37));
    }

    @Test
    void parsesObsoleteRfc850DateWithTwoDigitYear() {
        assertThat(RetryAfterParser.parse("Sunday, 06-Nov-94 08:49:37 GMT", NOW))
                .contains(Duration.ofSeconds(37));
    }

    @Test
    void parsesObsoleteAsctimeDate() {
        assertThat(RetryAfterParser.parse("Sun Nov  6 08:49:37 1994", NOW))
                .contains(Duration.ofSeconds(37));
    }

    @Test
    void toleratesAWrongDayNameAndCase() {
        assertThat(RetryAfterParser.parse("Mon, 06 NOV 1994 08:50:00 GMT", NOW))
                .contains(Duration.ofMinutes(1));
    }

    @Test
    void dateInThePastMeansNow() {
        assertThat(RetryAfterParser.parse("Sun, 06 Nov 1994 08:00:00 GMT", NOW)).contains(Duration.ZERO);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "", " ", "-1", "1.5", "+3", "soon", "Sun, 06 Nov 1994", "Sun, 32 Nov 1994 08:49:37 GMT",
                "Sun, 06 Nov 1994 08:49:37 PST"
            })
    void rejectsMalformedValues(String value) {
        assertThat(RetryAfterParser.parse(value, NOW)).isEmpty();
    }

    @Test
    void missingHeaderIsEmpty() {
        assertThat(RetryAfterParser.parse(null, NOW)).isEmpty();
    }
}
