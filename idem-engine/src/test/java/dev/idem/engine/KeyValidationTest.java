package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidIdempotencyKeyException;
import org.junit.jupiter.api.Test;

class KeyValidationTest {
    @Test
    void loneSurrogatesInScopeOrOperationAreRejected() {
        assertThatThrownBy(() -> IdempotencyKey.of("a\ud800", "op", "k"))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("lone surrogate at index 1");
        assertThatThrownBy(() -> IdempotencyKey.of("s", "\udc00op", "k"))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("operation");
        assertThat(IdempotencyKey.of("tenant-\ud83d\ude00", "op/\u20ac", "k").scope()).endsWith("\ud83d\ude00");
    }

    @Test
    void keysAreValuesAndEqualityCoversAllThreeParts() {
        assertThat(IdempotencyKey.of("s", "o", "k")).isEqualTo(IdempotencyKey.of("s", "o", "k"))
                .hasSameHashCodeAs(IdempotencyKey.of("s", "o", "k"))
                .isNotEqualTo(IdempotencyKey.of("s", "o", "K"))
                .isNotEqualTo(IdempotencyKey.of("s", "O", "k"))
                .isNotEqualTo(IdempotencyKey.of("S", "o", "k"));
        assertThat(IdempotencyKey.of("s", "o", "!~").key()).isEqualTo("!~");
        assertThatThrownBy(() -> IdempotencyKey.of("s", "o", "caf\u00e9")).isInstanceOf(InvalidIdempotencyKeyException.class);
        assertThatThrownBy(() -> IdempotencyKey.of("s".repeat(201), "o", "k"))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("201");
    }
}
