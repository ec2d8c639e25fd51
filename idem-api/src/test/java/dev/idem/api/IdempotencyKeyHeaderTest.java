package dev.idem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IdempotencyKeyHeaderTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"|8e03978e-40d5-43e8-bc93-6894a57f9324",
        "8e03978e-40d5-43e8-bc93-6894a57f9324|8e03978e-40d5-43e8-bc93-6894a57f9324",
        "'  \"abc\"\t'|abc",
        "\"abc\";a=1;b|abc",
        "\"a\\\"b\\\\c\"|a\"b\\c"})
    void readsStructuredStringsAndBareTokens(String field, String key) {
        assertThat(IdempotencyKeyHeader.parse(field)).isEqualTo(key);
        assertThat(IdempotencyKeyHeader.parse(List.of(field))).contains(key);
    }

    @Test
    void anAbsentFieldIsEmpty() {
        assertThat(IdempotencyKeyHeader.parse(List.of())).isEqualTo(Optional.empty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  ", "\"\"", "\"abc", "\"ab\\", "\"a\\nb\"", "\"abc\"x", "a b", "\"a b\"",
        "\"caf\u00e9\"", "caf\u00e9"})
    void rejectsMalformedFieldsWith400(String field) {
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(field))
                .isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
                        e -> assertThat(e.httpStatus()).isEqualTo(400));
    }

    @ParameterizedTest
    @ValueSource(strings = {"key,with,commas", "a,b", "a,", ",a", "\"a\",\"b\"", "\"a\", b"})
    void aListIsNotAKey(String field) {
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(field))
                .isInstanceOfSatisfying(InvalidIdempotencyKeyException.class,
                        e -> assertThat(e.httpStatus()).isEqualTo(400));
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(List.of(field)))
                .isInstanceOf(InvalidIdempotencyKeyException.class);
    }

    @Test
    void aBareListSaysToQuoteTheKeyAndAQuotedKeyMayHoldCommas() {
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse("key,with,commas"))
                .hasMessageContaining("is a list").hasMessageContaining("quoted string");
        assertThat(IdempotencyKeyHeader.parse("\"key,with,commas\"")).isEqualTo("key,with,commas");
    }

    @Test
    void rejectsRepeatedFieldsAndOverlongKeys() {
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse(List.of("a", "a"))).hasMessageContaining("must appear once");
        assertThatThrownBy(() -> IdempotencyKeyHeader.parse("k".repeat(256))).hasMessageContaining("256 characters");
        assertThat(IdempotencyKeyHeader.parse("\"" + "k".repeat(255) + "\"")).hasSize(255);
    }

    @ParameterizedTest
    @ValueSource(strings = {"8e03978e-40d5-43e8-bc93-6894a57f9324", "a\"b\\c", "~!#$%&'()*+,-./:;<=>?@[]^_`{|}"})
    void formatsTheDraftsQuotedFormAndParsesItBack(String key) {
        String field = IdempotencyKeyHeader.format(key);
        assertThat(field).startsWith("\"").endsWith("\"");
        assertThat(IdempotencyKeyHeader.parse(field)).isEqualTo(key);
    }

    @Test
    void formatEscapesQuotesAndBackslashes() {
        assertThat(IdempotencyKeyHeader.format("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
        assertThatThrownBy(() -> IdempotencyKeyHeader.format("a b")).isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThatThrownBy(() -> IdempotencyKeyHeader.format("")).isInstanceOf(InvalidIdempotencyKeyException.class);
    }
}
