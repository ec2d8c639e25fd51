package dev.idem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.time.Deadline;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestTimeoutHeaderTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "2500|PT2.5S",
        "2500m|PT2.5S",
        "' 3S\t'|PT3S",
        "00000007|PT0.007S",
        "0|PT0S",
        "0S|PT0S",
        "250000u|PT0.25S",
        "1500n|PT0.0000015S",
        "2M|PT2M",
        "1H|PT1H",
        "99999999|PT27H46M39.999S",
        "99999999S|PT27777H46M39S"})
    void readsMillisecondsAndGrpcTimeoutUnits(String field, String expected) {
        assertThat(RequestTimeoutHeader.parse(field)).isEqualTo(Duration.parse(expected));
        assertThat(RequestTimeoutHeader.parse(List.of(field))).contains(Duration.parse(expected));
    }

    @Test
    void anAbsentFieldIsEmpty() {
        assertThat(RequestTimeoutHeader.parse(List.of())).isEmpty();
    }

    @Test
    void hoursAndMinutesBeyondTheLongestBudgetAreReadAsIt() {
        assertThat(RequestTimeoutHeader.parse("99999999H")).isEqualTo(Deadline.MAX_BUDGET);
        assertThat(RequestTimeoutHeader.parse("99999999M")).isEqualTo(Deadline.MAX_BUDGET);
        assertThat(RequestTimeoutHeader.parse("87600H")).isEqualTo(Deadline.MAX_BUDGET);
        assertThat(RequestTimeoutHeader.parse("87599H")).isEqualTo(Duration.ofHours(87_599));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "-1", "-0", "+5", "1.5", "1e3", "0x10", "abc", "5 s", "5 S", "5s", "5ms",
        "5SS", "123456789", "000000000", "999999999999999999999999", "1,2", "100, 200", "\u0661\u0662", "5\u00a0",
        "Infinity", "NaN"})
    void malformedValuesAreRefusedWithA400(String field) {
        assertThatThrownBy(() -> RequestTimeoutHeader.parse(field))
                .isInstanceOf(InvalidRequestTimeoutException.class)
                .hasMessageContaining("X-Request-Timeout")
                .satisfies(e -> assertThat(((IdempotencyException) e).httpStatus()).isEqualTo(400));
    }

    @Test
    void aRepeatedFieldIsRefused() {
        assertThatThrownBy(() -> RequestTimeoutHeader.parse(List.of("100", "100")))
                .isInstanceOf(InvalidRequestTimeoutException.class).hasMessageContaining("appeared 2 times");
    }

    @Test
    void formatsWholeMillisecondsRoundedDown() {
        assertThat(RequestTimeoutHeader.format(Duration.ofMillis(2500))).isEqualTo("2500");
        assertThat(RequestTimeoutHeader.format(Duration.ofNanos(2_999_999))).isEqualTo("2");
        assertThat(RequestTimeoutHeader.format(Duration.ZERO)).isEqualTo("0");
        assertThat(RequestTimeoutHeader.format(Duration.ofMillis(99_999_999))).isEqualTo("99999999");
        assertThat(RequestTimeoutHeader.format(Duration.ofMillis(100_000_000))).isEqualTo("100000S");
        assertThat(RequestTimeoutHeader.format(Duration.ofDays(3650))).isEqualTo("5256000M");
        assertThat(RequestTimeoutHeader.format(Duration.ofDays(1_000_000))).isEqualTo("24000000H");
        assertThat(RequestTimeoutHeader.format(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo("99999999H");
        assertThatThrownBy(() -> RequestTimeoutHeader.format(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void whatIsFormattedReadsBackAsAtMostTheBudget() {
        for (Duration d : List.of(Duration.ofNanos(1), Duration.ofMillis(1), Duration.ofSeconds(30),
                Duration.ofMillis(99_999_999), Duration.ofHours(30), Duration.ofDays(400), Duration.ofDays(3650))) {
            Duration read = RequestTimeoutHeader.parse(RequestTimeoutHeader.format(d));
            assertThat(read).as("%s", d).isLessThanOrEqualTo(d);
            assertThat(d.minus(read)).as("%s", d).isLessThan(Duration.ofMinutes(1));
        }
    }
}
