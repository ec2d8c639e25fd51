package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdempotencyListenerTest {
    @Test
    void allCallsEveryListenerInOrderEvenAfterOneThrows() {
        List<String> seen = new ArrayList<>();
        IdempotencyListener first = e -> {
            seen.add("first");
            throw new IllegalStateException("first broke");
        };
        IdempotencyListener second = e -> {
            seen.add("second");
            throw new IllegalArgumentException("second broke");
        };
        IdempotencyListener third = e -> seen.add("third");

        assertThatThrownBy(() -> IdempotencyListener.all(List.of(first, second, third)).onEvent(null))
                .isInstanceOf(IllegalStateException.class).hasMessage("first broke")
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
        assertThat(seen).containsExactly("first", "second", "third");
    }

    @Test
    void noneOrOneListenerNeedsNoComposite() {
        IdempotencyListener only = e -> { };

        assertThat(IdempotencyListener.all(List.of())).isSameAs(IdempotencyListener.NONE);
        assertThat(IdempotencyListener.all(List.of(only))).isSameAs(only);
    }
}
