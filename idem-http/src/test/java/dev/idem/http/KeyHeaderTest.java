package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.http.internal.KeyHeader;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class KeyHeaderTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"|8e03978e-40d5-43e8-bc93-6894a57f9324",
        "8e03978e-40d5-43e8-bc93-6894a57f9324|8e03978e-40d5-43e8-bc93-6894a57f9324",
        "'  \"abc\"\t'|abc",
        "\"abc\";a=1;b|abc",
        "\"a\\\"b\\\\c\"|a\"b\\c",
        "bare;token=stuff|bare;token=stuff"})
    void readsStructuredStringsAndBareTokens(String field, String key) throws Exception {
        assertThat(KeyHeader.parse(List.of(field))).isEqualTo(key);
    }

    @Test
    void anAbsentFieldIsNull() throws Exception {
        assertThat(KeyHeader.parse(List.of())).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  ", "\"\"", "\"abc", "\"ab\\", "\"a\\nb\"", "\"abc\"x", "a b", "\"a b\"",
        "\"caf\u00e9\"", "caf\u00e9", "key,with,commas", "bare;token,with=stuff",
        "\"a\", \"b\""})
    void rejectsMalformedFields(String field) {
        assertThatThrownBy(() -> KeyHeader.parse(List.of(field))).isInstanceOf(KeyHeader.InvalidKeyException.class);
    }

    @Test
    void rejectsRepeatedFieldsAndOverlongKeys() {
        assertThatThrownBy(() -> KeyHeader.parse(List.of("a", "a")))
                .hasMessageContaining("must appear once");
        assertThatThrownBy(() -> KeyHeader.parse(List.of("k".repeat(256))))
                .hasMessageContaining("256 characters");
    }

    @Test
    void acceptsTheLongestKey() throws Exception {
        assertThat(KeyHeader.parse(List.of("\"" + "k".repeat(255) + "\""))).hasSize(255);
    }
}
