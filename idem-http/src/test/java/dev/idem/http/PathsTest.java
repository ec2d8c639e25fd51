package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.http.internal.Paths;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathsTest {
    @ParameterizedTest
    @CsvSource({
        "/payments, /payments",
        "/payments;x=1, /payments",
        "/pay%6Dents, /payments",
        "/pay%6dents, /payments",
        "//payments, /payments",
        "/./payments, /payments",
        "/x/../payments, /payments",
        "/../payments, /payments",
        "/a;b=c/./d//e/, /a/d/e/",
        "/orders/1/confirm, /orders/1/confirm",
        "/caf%c3%a9, /caf%C3%A9",
        "/a%2Fb, /a%2Fb",
        "/a%2fb/c, /a%2Fb/c",
        "/a b, /a%20b",
        "/100%, /100%25",
        "'', /",
        "/, /",
        "/x/.., /",
        "/x/y/.., /x/",
    })
    void everySpellingOfAPathHasOneCanonicalForm(String raw, String canonical) {
        assertThat(Paths.normalize(raw)).isEqualTo(canonical);
    }

    @org.junit.jupiter.api.Test
    void aNonAsciiPathIsEscapedInUtf8() {
        assertThat(Paths.normalize("/caf\u00e9/\ud83d\ude00")).isEqualTo("/caf%C3%A9/%F0%9F%98%80");
    }
}
